import { concatBytes, equalBytes, normalizeAddress, u64be } from "@svc/canonical";
import { requireBytes } from "./arguments.js";
import { KtVerifyError } from "./errors.js";

/** Domain separation of log leaves: the ASCII bytes `svc-kt-leaf-v1` and 0x00. */
export const LEAF_DOMAIN: Uint8Array = new TextEncoder().encode("svc-kt-leaf-v1\0");

export const LEAF_KIND = { identity: 1, tombstone: 2 } as const;

/** One identity change: a register that created an identity, or a delete. */
export type KtLeaf =
  | {
      kind: "identity";
      address: string;
      identitySigningKey: Uint8Array;
      identityDHKey: Uint8Array;
      timestampMs: number;
    }
  | { kind: "tombstone"; address: string; timestampMs: number };

const KEY_SIZE = 32;
const MAX_ADDRESS_BYTES = 256;
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * LEAF_DOMAIN || u8 kind || u16be len(address) || address (UTF-8, normalized)
 * || identity only: identitySigningKey (32) || identityDHKey (32) || u64be timestampMs.
 */
export function encodeLeaf(leaf: KtLeaf): Uint8Array {
  if (typeof leaf !== "object" || leaf === null) throw new TypeError("leaf must be an object");
  if (leaf.kind !== "identity" && leaf.kind !== "tombstone") {
    throw new TypeError('leaf.kind must be "identity" or "tombstone"');
  }
  if (typeof leaf.address !== "string" || normalizeAddressOrNull(leaf.address) !== leaf.address) {
    throw new RangeError("leaf.address must be a valid, normalized address");
  }
  const address = utf8Encoder.encode(leaf.address);
  const header = Uint8Array.of(LEAF_KIND[leaf.kind], address.length >> 8, address.length & 0xff);
  const keys =
    leaf.kind === "identity"
      ? concatBytes(
          requireKey(leaf.identitySigningKey, "leaf.identitySigningKey"),
          requireKey(leaf.identityDHKey, "leaf.identityDHKey"),
        )
      : new Uint8Array(0);
  return concatBytes(LEAF_DOMAIN, header, address, keys, u64be(leaf.timestampMs));
}

/** Parses {@link encodeLeaf} output; KtVerifyError KT_MALFORMED for anything else. */
export function decodeLeaf(bytes: Uint8Array): KtLeaf {
  if (!(bytes instanceof Uint8Array)) throw new TypeError("bytes must be a Uint8Array");
  let offset = LEAF_DOMAIN.length;
  if (bytes.length < offset + 3 || !equalBytes(bytes.subarray(0, offset), LEAF_DOMAIN)) {
    throw malformedLeaf("does not start with the leaf domain");
  }
  const kind = bytes[offset] as number;
  const length = ((bytes[offset + 1] as number) << 8) | (bytes[offset + 2] as number);
  offset += 3;
  if (kind !== LEAF_KIND.identity && kind !== LEAF_KIND.tombstone) {
    throw malformedLeaf(`unknown kind ${kind}`);
  }
  const keysLength = kind === LEAF_KIND.identity ? 2 * KEY_SIZE : 0;
  if (length === 0 || length > MAX_ADDRESS_BYTES) throw malformedLeaf("bad address length");
  if (bytes.length !== offset + length + keysLength + 8) throw malformedLeaf("wrong length");
  const address = decodeAddress(bytes.subarray(offset, offset + length));
  offset += length;
  const keys = bytes.slice(offset, offset + keysLength);
  offset += keysLength;
  const timestampMs = readTimestamp(bytes, offset);
  if (kind === LEAF_KIND.tombstone) return { kind: "tombstone", address, timestampMs };
  return {
    kind: "identity",
    address,
    identitySigningKey: keys.slice(0, KEY_SIZE),
    identityDHKey: keys.slice(KEY_SIZE),
    timestampMs,
  };
}

/** A leaf's u64be timestamp at `offset`; KT_MALFORMED above 2^53 - 1. */
export function readTimestamp(bytes: Uint8Array, offset: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, 8);
  const high = view.getUint32(0);
  if (high >= 2 ** 21) throw malformedLeaf("timestamp is not a safe integer");
  return high * 2 ** 32 + view.getUint32(4);
}

function decodeAddress(bytes: Uint8Array): string {
  let address: string;
  try {
    address = utf8Decoder.decode(bytes);
  } catch {
    throw malformedLeaf("address is not UTF-8");
  }
  if (normalizeAddressOrNull(address) !== address) {
    throw malformedLeaf("address is not a valid, normalized address");
  }
  return address;
}

export function normalizeAddressOrNull(address: string): string | null {
  try {
    return normalizeAddress(address);
  } catch {
    return null;
  }
}

function requireKey(key: unknown, name: string): Uint8Array {
  return requireBytes(key, name, KEY_SIZE);
}

export function malformedLeaf(reason: string): KtVerifyError {
  return new KtVerifyError("KT_MALFORMED", `log leaf ${reason}`);
}
