import { assertHash, HASH_SIZE, isBytes, isHash } from "./assert.js";
import { equalBytes } from "./bytes.js";
import { MerkleError } from "./errors.js";
import { defaultHashes, EMPTY_MAP_LEAF, MAP_DEPTH, mapLeafHash, mapNodeHash } from "./map-hash.js";
import { keyBit } from "./map-path.js";

/**
 * Proof for one key of the address index map. Bit d of `bitmap` (MSB of byte 0 first, d = 0..255)
 * is set when the sibling at depth d + 1 of the key's path is not the default hash of its depth;
 * `siblings` lists exactly those siblings, top-down (smallest depth first).
 */
export interface MapProof {
  readonly bitmap: Uint8Array;
  readonly siblings: readonly Uint8Array[];
}

const BITMAP_SIZE = MAP_DEPTH / 8;

/**
 * Does `proof` show that `key` maps to `value` (a 32-byte log leaf hash) under `root`, or, with
 * value null, that `key` is absent? False for any bad proof, including one that lists a default
 * sibling (proofs are canonical).
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
  const { bitmap, siblings } = proof;
  if (!isBytes(bitmap) || bitmap.length !== BITMAP_SIZE || !Array.isArray(siblings)) return false;
  if (siblings.length !== countBits(bitmap) || !siblings.every(isHash)) return false;

  const defaults = defaultHashes();
  let next = siblings.length - 1;
  let hash = value === null ? EMPTY_MAP_LEAF : mapLeafHash(key, value);
  for (let d = MAP_DEPTH - 1; d >= 0; d--) {
    let sibling = defaults[d + 1] as Uint8Array;
    if (keyBit(bitmap, d) === 1) {
      sibling = siblings[next] as Uint8Array;
      next -= 1;
      if (equalBytes(sibling, defaults[d + 1] as Uint8Array)) return false;
    }
    hash = keyBit(key, d) === 0 ? mapNodeHash(hash, sibling) : mapNodeHash(sibling, hash);
  }
  return equalBytes(hash, root);
}

/** Binary form of a proof: bitmap (32 bytes) || listed siblings (32 bytes each). */
export function encodeMapProof(proof: MapProof): Uint8Array {
  if (typeof proof !== "object" || proof === null) throw new TypeError("proof must be an object");
  const { bitmap, siblings } = proof;
  assertHash("proof.bitmap", bitmap);
  if (!Array.isArray(siblings)) throw new TypeError("proof.siblings must be an array");
  const out = new Uint8Array(BITMAP_SIZE + siblings.length * HASH_SIZE);
  out.set(bitmap, 0);
  for (const [i, s] of siblings.entries()) {
    assertHash(`proof.siblings[${i}]`, s);
    out.set(s, BITMAP_SIZE + i * HASH_SIZE);
  }
  return out;
}

/** Parses {@link encodeMapProof} output; MerkleError MERKLE_MALFORMED_PROOF on a wrong length. */
export function decodeMapProof(bytes: Uint8Array): MapProof {
  if (!isBytes(bytes)) throw new TypeError("bytes must be a Uint8Array");
  const listed = (bytes.length - BITMAP_SIZE) / HASH_SIZE;
  const bitmap = bytes.slice(0, BITMAP_SIZE);
  if (bytes.length < BITMAP_SIZE || !Number.isInteger(listed) || listed !== countBits(bitmap)) {
    throw new MerkleError(
      "MERKLE_MALFORMED_PROOF",
      "a map proof is a 32-byte bitmap followed by one 32-byte sibling per set bit",
    );
  }
  const siblings: Uint8Array[] = [];
  for (let i = 0; i < listed; i++) {
    const start = BITMAP_SIZE + i * HASH_SIZE;
    siblings.push(bytes.slice(start, start + HASH_SIZE));
  }
  return { bitmap, siblings };
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
