import { equalBytes } from "@svc/canonical";
import { assertCount, assertHash, isHash } from "./assert.js";
import { emptyRoot, nodeHash } from "./tree-hash.js";

/**
 * RFC 9162 section 2.1.3.2: does `proof` show the leaf with hash `leafHash` at `index` in the tree
 * of `treeSize` leaves with root `root`? False for any bad proof, including index >= treeSize.
 */
export function verifyInclusion(
  leafHash: Uint8Array,
  index: number,
  treeSize: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  assertHash("leafHash", leafHash);
  assertCount("index", index);
  assertCount("treeSize", treeSize);
  assertProofArray(proof);
  assertHash("root", root);
  if (index >= treeSize) return false;
  let fn = index;
  let sn = treeSize - 1;
  let r = leafHash;
  for (const p of proof) {
    if (sn === 0 || !isHash(p)) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && equalBytes(r, root);
}

/**
 * RFC 9162 section 2.1.4.2: is the tree of `to` leaves with root `newRoot` an append-only
 * extension of the tree of `from` leaves with root `oldRoot`? For from = to the proof must be
 * empty and the roots equal; for from = 0 it must be empty and oldRoot the empty root (newRoot
 * can then only be checked when to is 0 too).
 * Throws RangeError when from > to (the caller compares tree heads, not the proof).
 */
export function verifyConsistency(
  from: number,
  to: number,
  oldRoot: Uint8Array,
  newRoot: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  assertCount("from", from);
  assertCount("to", to);
  assertHash("oldRoot", oldRoot);
  assertHash("newRoot", newRoot);
  assertProofArray(proof);
  if (from > to) throw new RangeError(`from (${from}) must not exceed to (${to})`);
  if (from === to) {
    return proof.length === 0 && equalBytes(oldRoot, newRoot) && (from > 0 || isEmptyRoot(oldRoot));
  }
  // The empty tree is a prefix of every tree: only its own root can be checked.
  if (from === 0) return proof.length === 0 && isEmptyRoot(oldRoot);
  if (proof.length === 0 || !proof.every(isHash)) return false;

  // Step 2: when `from` is a power of two the old root is itself the first node of the path.
  const path = isPowerOfTwo(from) ? [oldRoot, ...proof] : proof;
  let fn = from - 1;
  let sn = to - 1;
  while (fn % 2 === 1) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0] as Uint8Array;
  let sr = fr;
  for (let i = 1; i < path.length; i++) {
    const c = path[i] as Uint8Array;
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && equalBytes(fr, oldRoot) && equalBytes(sr, newRoot);
}

function isEmptyRoot(root: Uint8Array): boolean {
  return equalBytes(root, emptyRoot());
}

function assertProofArray(proof: unknown): asserts proof is readonly Uint8Array[] {
  if (!Array.isArray(proof)) throw new TypeError("proof must be an array");
}

/** Right shift by one without 32-bit bitwise operators, so sizes up to 2^53 - 1 work. */
function half(n: number): number {
  return Math.floor(n / 2);
}

function isPowerOfTwo(n: number): boolean {
  let p = 1;
  while (p < n) p *= 2;
  return p === n;
}
