import { sha256 } from "@noble/hashes/sha2.js";
import { assertBytes } from "@svc/canonical";
import { assertHash } from "./assert.js";

/** RFC 9162 section 2.1.1 domain-separation prefixes. */
const LEAF_PREFIX = Uint8Array.of(0x00);
const NODE_PREFIX = Uint8Array.of(0x01);

/** Leaf hash: SHA-256(0x00 || leaf). */
export function leafHash(leaf: Uint8Array): Uint8Array {
  assertBytes("leaf", leaf);
  return sha256.create().update(LEAF_PREFIX).update(leaf).digest();
}

/** Interior node hash: SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  assertHash("left", left);
  assertHash("right", right);
  return sha256.create().update(NODE_PREFIX).update(left).update(right).digest();
}

/** Root of the empty tree: SHA-256 of the empty string. */
export function emptyRoot(): Uint8Array {
  return sha256(new Uint8Array(0));
}

/** MTH of RFC 9162 section 2.1.1 over already-hashed leaves. Linear time; for tests and small trees. */
export function rootFromLeafHashes(hashes: readonly Uint8Array[]): Uint8Array {
  if (!Array.isArray(hashes)) throw new TypeError("hashes must be an array");
  for (const [i, h] of hashes.entries()) assertHash(`hashes[${i}]`, h);
  if (hashes.length === 0) return emptyRoot();
  // Pairwise reduction level by level; an odd last node is carried up unchanged, which equals
  // the split at the largest power of two below the size.
  let level = hashes.slice();
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i + 1 < level.length; i += 2) {
      next.push(nodeHash(level[i] as Uint8Array, level[i + 1] as Uint8Array));
    }
    if (level.length % 2 === 1) next.push(level[level.length - 1] as Uint8Array);
    level = next;
  }
  return level[0] as Uint8Array;
}
