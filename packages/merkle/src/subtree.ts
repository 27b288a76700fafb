import { assertCount, assertHash } from "./assert.js";
import { MerkleError } from "./errors.js";
import { emptyRoot, nodeHash } from "./tree-hash.js";

/**
 * A complete (perfect) subtree of the log: level 0 is a leaf hash, and the subtree at
 * (level, index) covers leaves [index * 2^level, (index + 1) * 2^level). Once the log holds
 * those leaves its hash never changes, so a server can store it as a row keyed by (level, index).
 */
export interface SubtreeCoord {
  readonly level: number;
  readonly index: number;
}

export interface SubtreeNode extends SubtreeCoord {
  readonly hash: Uint8Array;
}

/**
 * Where complete-subtree hashes come from: a getter, or a map keyed by {@link subtreeKey}
 * (for example filled from one batched database query). Returns undefined for a missing node.
 */
export type SubtreeSource =
  | ((level: number, index: number) => Uint8Array | undefined)
  | ReadonlyMap<string, Uint8Array>;

/** Map key of a subtree coordinate: `"<level>:<index>"`. */
export function subtreeKey(level: number, index: number): string {
  assertCount("level", level);
  assertCount("index", index);
  return `${level}:${index}`;
}

/** The complete subtrees whose right fold is the root of a tree of `treeSize` leaves, left to right. */
export function rootNodes(treeSize: number): SubtreeCoord[] {
  assertCount("treeSize", treeSize);
  return rangeSubtrees(0, treeSize);
}

/** Root of the tree of `treeSize` leaves from its stored complete subtrees (any historical size). */
export function rootFromNodes(treeSize: number, nodes: SubtreeSource): Uint8Array {
  const coords = rootNodes(treeSize);
  return coords.length === 0 ? emptyRoot() : foldRange(coords, nodes);
}

/**
 * Splits the leaf range [lo, hi) into complete subtrees, largest first. Callers only pass ranges
 * whose start is aligned to a power of two at least hi - lo (the ranges that occur in RFC 9162
 * proofs), so the sizes are the binary digits of hi - lo and their right fold is MTH(D[lo:hi]).
 */
export function rangeSubtrees(lo: number, hi: number): SubtreeCoord[] {
  const out: SubtreeCoord[] = [];
  while (lo < hi) {
    let level = 0;
    let size = 1;
    while (lo % (size * 2) === 0 && lo + size * 2 <= hi) {
      size *= 2;
      level += 1;
    }
    out.push({ level, index: lo / size });
    lo += size;
  }
  return out;
}

/** MTH of a range given as its complete subtrees: node(s1, node(s2, ... node(s[n-1], s[n]))). */
export function foldRange(coords: readonly SubtreeCoord[], nodes: SubtreeSource): Uint8Array {
  let acc: Uint8Array | undefined;
  for (let i = coords.length - 1; i >= 0; i--) {
    const coord = coords[i] as SubtreeCoord;
    const hash = lookupSubtree(nodes, coord.level, coord.index);
    acc = acc === undefined ? hash : nodeHash(hash, acc);
  }
  if (acc === undefined) throw new RangeError("a proof entry covers no leaves");
  return acc;
}

/** Largest power of two strictly below n (n >= 2): the split point k of RFC 9162. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** Reads one stored subtree; MerkleError MERKLE_MISSING_NODE when the source has none. */
export function lookupSubtree(nodes: SubtreeSource, level: number, index: number): Uint8Array {
  const hash = typeof nodes === "function" ? nodes(level, index) : nodes.get(`${level}:${index}`);
  if (hash === undefined) {
    throw new MerkleError(
      "MERKLE_MISSING_NODE",
      `no subtree hash at level ${level} index ${index}`,
    );
  }
  assertHash(`subtree ${level}:${index}`, hash);
  return hash;
}
