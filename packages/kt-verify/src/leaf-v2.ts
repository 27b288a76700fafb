import { sha256 } from "@noble/hashes/sha2.js";
import { concatBytes, equalBytes, u64be } from "@svc/canonical";
import { requireBytes } from "./arguments.js";
import { LEAF_KIND, malformedLeaf, normalizeAddressOrNull, readTimestamp } from "./leaf.js";

/** Domain separation of format-3 log leaves: the ASCII bytes `svc-kt-leaf-v2` and 0x00. */
export const LEAF_V2_DOMAIN: Uint8Array = new TextEncoder().encode("svc-kt-leaf-v2\0");
/** Domain separation of a leaf's commitment: `svc-kt-commit-v1` and 0x00. */
export const COMMITMENT_DOMAIN: Uint8Array = new TextEncoder().encode("svc-kt-commit-v1\0");

/** A format-3 leaf: the address's VRF index and a commitment to the address and its keys. */
export interface KtLeafV2 {
  kind: "identity" | "tombstone";
  /** The first 32 bytes of the address's VRF output. */
  index: Uint8Array;
  commitment: Uint8Array;
  timestampMs: number;
}

const HASH_SIZE = 32;
const KEY_SIZE = 32;
/** Domain, kind, index, commitment, timestamp. */
export const LEAF_V2_SIZE = LEAF_V2_DOMAIN.length + 1 + 2 * HASH_SIZE + 8;

/** LEAF_V2_DOMAIN || u8 kind || index (32) || commitment (32) || u64be timestampMs. */
export function encodeLeafV2(leaf: KtLeafV2): Uint8Array {
  if (typeof leaf !== "object" || leaf === null) throw new TypeError("leaf must be an object");
  if (leaf.kind !== "identity" && leaf.kind !== "tombstone") {
    throw new TypeError('leaf.kind must be "identity" or "tombstone"');
  }
  const index = requireBytes(leaf.index, "leaf.index", HASH_SIZE);
  const commitment = requireBytes(leaf.commitment, "leaf.commitment", HASH_SIZE);
  if (!Number.isSafeInteger(leaf.timestampMs) || leaf.timestampMs < 0) {
    throw new RangeError("leaf.timestampMs must be a non-negative safe integer");
  }
  return concatBytes(
    LEAF_V2_DOMAIN,
    Uint8Array.of(LEAF_KIND[leaf.kind]),
    index,
    commitment,
    u64be(leaf.timestampMs),
  );
}

/** Whether `bytes` starts with the format-3 leaf domain (decode it with {@link decodeLeafV2}). */
export function isLeafV2(bytes: Uint8Array): boolean {
  return (
    bytes.length >= LEAF_V2_DOMAIN.length &&
    equalBytes(bytes.subarray(0, LEAF_V2_DOMAIN.length), LEAF_V2_DOMAIN)
  );
}

/** Parses {@link encodeLeafV2} output; KtVerifyError KT_MALFORMED for anything else. */
export function decodeLeafV2(bytes: Uint8Array): KtLeafV2 {
  if (!(bytes instanceof Uint8Array)) throw new TypeError("bytes must be a Uint8Array");
  if (!isLeafV2(bytes)) throw malformedLeaf("does not start with the v2 leaf domain");
  if (bytes.length !== LEAF_V2_SIZE) throw malformedLeaf("wrong length");
  let offset = LEAF_V2_DOMAIN.length;
  const kindByte = bytes[offset++] as number;
  if (kindByte !== LEAF_KIND.identity && kindByte !== LEAF_KIND.tombstone) {
    throw malformedLeaf(`unknown kind ${kindByte}`);
  }
  const index = bytes.slice(offset, offset + HASH_SIZE);
  offset += HASH_SIZE;
  const commitment = bytes.slice(offset, offset + HASH_SIZE);
  offset += HASH_SIZE;
  return {
    kind: kindByte === LEAF_KIND.identity ? "identity" : "tombstone",
    index,
    commitment,
    timestampMs: readTimestamp(bytes, offset),
  };
}

/** What an identity leaf's commitment covers besides the opening and the address. */
export interface CommittedKeys {
  identitySigningKey: Uint8Array;
  identityDHKey: Uint8Array;
  /**
   * SHA-256 of the identity's last-resort ML-KEM public key, when it has one: the commitment
   * then covers it, so replacing that key is a new identity leaf.
   */
  kemKeyHash?: Uint8Array;
}

/**
 * SHA-256(COMMITMENT_DOMAIN || opening (32) || u16be len(address) || address || keys), keys
 * being identitySigningKey || identityDHKey [|| kemKeyHash] for an identity and nothing for a
 * tombstone. Without a kemKeyHash, the bytes are those of identities logged before KEM keys.
 */
export function leafCommitment(
  opening: Uint8Array,
  address: string,
  keys?: CommittedKeys,
): Uint8Array {
  requireBytes(opening, "opening", HASH_SIZE);
  if (typeof address !== "string" || normalizeAddressOrNull(address) !== address) {
    throw new RangeError("address must be a valid, normalized address");
  }
  const name = new TextEncoder().encode(address);
  const parts = [
    COMMITMENT_DOMAIN,
    opening,
    Uint8Array.of(name.length >> 8, name.length & 0xff),
    name,
  ];
  if (keys !== undefined) {
    parts.push(
      requireBytes(keys.identitySigningKey, "keys.identitySigningKey", KEY_SIZE),
      requireBytes(keys.identityDHKey, "keys.identityDHKey", KEY_SIZE),
    );
    if (keys.kemKeyHash !== undefined) {
      parts.push(requireBytes(keys.kemKeyHash, "keys.kemKeyHash", HASH_SIZE));
    }
  }
  return sha256(concatBytes(...parts));
}
