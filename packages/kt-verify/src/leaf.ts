import { concatBytes, equalBytes, normalizeAddress, u64be } from "@svc/canonical";
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
    throw malformed("does not start with the leaf domain");
  }
  const kind = bytes[offset] as number;
  const length = ((bytes[offset + 1] as number) << 8) | (bytes[offset + 2] as number);
  offset += 3;
  if (kind !== LEAF_KIND.identity && kind !== LEAF_KIND.tombstone) {
    throw malformed(`unknown kind ${kind}`);
  }
  const keysLength = kind === LEAF_KIND.identity ? 2 * KEY_SIZE : 0;
  if (length === 0 || length > MAX_ADDRESS_BYTES) throw malformed("bad address length");
  if (bytes.length !== offset + length + keysLength + 8) throw malformed("wrong length");
  const address = decodeAddress(bytes.subarray(offset, offset + length));
  offset += length;
  const keys = bytes.slice(offset, offset + keysLength);
  offset += keysLength;
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, 8);
  const high = view.getUint32(0);
  if (high >= 2 ** 21) throw malformed("timestamp is not a safe integer");
  const timestampMs = high * 2 ** 32 + view.getUint32(4);
  if (kind === LEAF_KIND.tombstone) return { kind: "tombstone", address, timestampMs };
  return {
    kind: "identity",
    address,
    identitySigningKey: keys.slice(0, KEY_SIZE),
    identityDHKey: keys.slice(KEY_SIZE),
    timestampMs,
  };
}

function decodeAddress(bytes: Uint8Array): string {
  let address: string;
  try {
    address = utf8Decoder.decode(bytes);
  } catch {
    throw malformed("address is not UTF-8");
  }
  if (normalizeAddressOrNull(address) !== address) {
    throw malformed("address is not a valid, normalized address");
  }
  return address;
}

function normalizeAddressOrNull(address: string): string | null {
  try {
    return normalizeAddress(address);
  } catch {
    return null;
  }
}

function requireKey(key: unknown, name: string): Uint8Array {
  if (!(key instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array`);
  if (key.length !== KEY_SIZE) throw new RangeError(`${name} must be ${KEY_SIZE} bytes`);
  return key;
}

function malformed(reason: string): KtVerifyError {
  return new KtVerifyError("KT_MALFORMED", `log leaf ${reason}`);
}
