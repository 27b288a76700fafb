import { equalBytes, isBytes } from "@svc/canonical";
import { assertCount, assertHash, HASH_SIZE, isHash } from "./assert.js";
import { MerkleError } from "./errors.js";
import { EMPTY_MAP_NODE, MAP_DEPTH, mapLeafHash } from "./map-hash.js";
import { keyBit, mapRootFrom } from "./map-path.js";

/** One key of the map and its value. */
export interface MapEntry {
  readonly key: Uint8Array;
  readonly value: Uint8Array;
}

/**
 * Proof for one key of the address index map: the path from the root down to `depth`, where the
 * key's own single-key subtree sits (membership), or an empty subtree or another key's single-key
 * subtree (`other`) sits (non-membership). Bit d of `bitmap` (MSB of byte 0 first, d < depth) is
 * set when the sibling at depth d + 1 is not empty; `siblings` lists exactly those, top-down.
 */
export interface MapProof {
  readonly depth: number;
  readonly bitmap: Uint8Array;
  readonly siblings: readonly Uint8Array[];
  readonly other?: MapEntry;
}

const BITMAP_SIZE = MAP_DEPTH / 8;
const DEPTH_SIZE = 2;

/**
 * Does `proof` show that `key` maps to `value` (a 32-byte log leaf hash) under `root`, or, with
 * value null, that `key` is absent? False for any bad proof, including a non-canonical one (a
 * bitmap bit at or past `depth`, a listed empty sibling, an `other` equal to `key`).
 */
export function verifyMapProof(
  root: Uint8Array,
  key: Uint8Array,
  value: Uint8Array | null,
  proof: MapProof,
): boolean {
  assertHash("root", root);
  assertHash("key", key);
  if (value !== null) assertHash("value", value);
  if (typeof proof !== "object" || proof === null) throw new TypeError("proof must be an object");
  const { depth, bitmap, siblings, other } = proof;
  if (!Number.isSafeInteger(depth) || depth < 0 || depth > MAP_DEPTH) return false;
  if (!isBytes(bitmap) || bitmap.length !== BITMAP_SIZE || !Array.isArray(siblings)) return false;
  if (highestBit(bitmap) >= depth || siblings.length !== countBits(bitmap)) return false;
  if (!siblings.every((s) => isHash(s) && !equalBytes(s, EMPTY_MAP_NODE))) return false;

  let start = value === null ? EMPTY_MAP_NODE : mapLeafHash(key, value);
  if (other !== undefined) {
    // The key itself as "another key" would prove a present key absent.
    if (value !== null || !isEntry(other) || equalBytes(other.key, key)) return false;
    start = mapLeafHash(other.key, other.value);
  }
  let next = siblings.length - 1;
  const computed = mapRootFrom(key, depth, start, (d) =>
    keyBit(bitmap, d - 1) === 1 ? (siblings[next--] as Uint8Array) : EMPTY_MAP_NODE,
  );
  return equalBytes(computed, root);
}

/**
 * Binary form of a proof: u16be(depth) || bitmap (32 bytes) || listed siblings (32 bytes each)
 * || other key || other value (only when `other` is set).
 */
export function encodeMapProof(proof: MapProof): Uint8Array {
  if (typeof proof !== "object" || proof === null) throw new TypeError("proof must be an object");
  const { depth, bitmap, siblings, other } = proof;
  assertCount("proof.depth", depth);
  if (depth > MAP_DEPTH) throw new RangeError(`proof.depth must be at most ${MAP_DEPTH}`);
  assertHash("proof.bitmap", bitmap);
  if (!Array.isArray(siblings)) throw new TypeError("proof.siblings must be an array");
  if (other !== undefined) {
    assertHash("proof.other.key", other.key);
    assertHash("proof.other.value", other.value);
  }
  const parts = [...siblings, ...(other === undefined ? [] : [other.key, other.value])];
  const out = new Uint8Array(DEPTH_SIZE + BITMAP_SIZE + parts.length * HASH_SIZE);
  new DataView(out.buffer).setUint16(0, depth);
  out.set(bitmap, DEPTH_SIZE);
  for (const [i, part] of parts.entries()) {
    assertHash(i < siblings.length ? `proof.siblings[${i}]` : "proof.other", part);
    out.set(part, DEPTH_SIZE + BITMAP_SIZE + i * HASH_SIZE);
  }
  return out;
}

/** Parses {@link encodeMapProof} output; MerkleError MERKLE_MALFORMED_PROOF on a wrong length. */
export function decodeMapProof(bytes: Uint8Array): MapProof {
  if (!isBytes(bytes)) throw new TypeError("bytes must be a Uint8Array");
  const header = DEPTH_SIZE + BITMAP_SIZE;
  const bitmap = bytes.slice(DEPTH_SIZE, header);
  const listed = countBits(bitmap);
  const extra = bytes.length - header - listed * HASH_SIZE;
  if (bytes.length < header || (extra !== 0 && extra !== 2 * HASH_SIZE)) {
    throw new MerkleError(
      "MERKLE_MALFORMED_PROOF",
      "a map proof is a 2-byte depth, a 32-byte bitmap, one 32-byte sibling per set bit and " +
        "optionally another key and its value (32 bytes each)",
    );
  }
  const hashAt = (i: number) => bytes.slice(header + i * HASH_SIZE, header + (i + 1) * HASH_SIZE);
  const depth = new DataView(bytes.buffer, bytes.byteOffset).getUint16(0);
  const siblings = Array.from({ length: listed }, (_, i) => hashAt(i));
  if (extra === 0) return { depth, bitmap, siblings };
  return { depth, bitmap, siblings, other: { key: hashAt(listed), value: hashAt(listed + 1) } };
}

function isEntry(value: unknown): value is MapEntry {
  if (typeof value !== "object" || value === null) return false;
  const entry = value as Record<string, unknown>;
  return isHash(entry.key) && isHash(entry.value);
}

function countBits(bytes: Uint8Array): number {
  let n = 0;
  for (let b of bytes) {
    while (b !== 0) {
      n += b & 1;
      b >>= 1;
    }
  }
  return n;
}

/** Index of the last set bit (MSB-first order), -1 when none is set. */
function highestBit(bytes: Uint8Array): number {
  for (let i = bytes.length - 1; i >= 0; i--) {
    const b = bytes[i] as number;
    if (b !== 0) return i * 8 + 7 - (31 - Math.clz32(b & -b));
  }
  return -1;
}
