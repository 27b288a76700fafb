import { assertCount } from "./assert.js";
import {
  foldRange,
  rangeSubtrees,
  type SubtreeCoord,
  type SubtreeSource,
  splitPoint,
  subtreeKey,
} from "./subtree.js";

/**
 * What a proof is made of before any hash is read: one entry per proof element, each entry the
 * complete subtrees (left to right) whose right fold is that element. At most one entry (a range
 * ending at the tree's right edge) has more than one subtree, so a proof reads O(log n) nodes.
 */
export type ProofPlan = readonly (readonly SubtreeCoord[])[];

/** RFC 9162 section 2.1.3.1 inclusion proof of leaf `index` in a tree of `treeSize` leaves. */
export function inclusionProof(
  index: number,
  treeSize: number,
  nodes: SubtreeSource,
): Uint8Array[] {
  return assembleProof(inclusionProofPlan(index, treeSize), nodes);
}

/** RFC 9162 section 2.1.4.1 consistency proof from size `from` to size `to` (empty if from is 0 or to). */
export function consistencyProof(from: number, to: number, nodes: SubtreeSource): Uint8Array[] {
  return assembleProof(consistencyProofPlan(from, to), nodes);
}

/** Plan of PATH(index, D[0:treeSize]), elements ordered from the leaf upwards. */
export function inclusionProofPlan(index: number, treeSize: number): ProofPlan {
  assertCount("index", index);
  assertCount("treeSize", treeSize);
  if (index >= treeSize) {
    throw new RangeError(`index ${index} is outside a tree of ${treeSize} leaves`);
  }
  const topDown: SubtreeCoord[][] = [];
  let lo = 0;
  let hi = treeSize;
  while (hi - lo > 1) {
    const k = splitPoint(hi - lo);
    if (index < lo + k) {
      topDown.push(rangeSubtrees(lo + k, hi));
      hi = lo + k;
    } else {
      topDown.push(rangeSubtrees(lo, lo + k));
      lo += k;
    }
  }
  return topDown.reverse();
}

/** Plan of PROOF(from, D[0:to]); empty when from is 0 or equals to. */
export function consistencyProofPlan(from: number, to: number): ProofPlan {
  assertCount("from", from);
  assertCount("to", to);
  if (from > to) throw new RangeError(`from (${from}) must not exceed to (${to})`);
  if (from === 0 || from === to) return [];
  const topDown: SubtreeCoord[][] = [];
  let lo = 0;
  let hi = to;
  let whole = true; // the "b" flag of SUBPROOF: the range is still the old tree's own root
  while (from !== hi) {
    const k = splitPoint(hi - lo);
    if (from - lo <= k) {
      topDown.push(rangeSubtrees(lo + k, hi));
      hi = lo + k;
    } else {
      topDown.push(rangeSubtrees(lo, lo + k));
      lo += k;
      whole = false;
    }
  }
  if (!whole) topDown.push(rangeSubtrees(lo, hi));
  return topDown.reverse();
}

/** The distinct subtree coordinates a plan reads, for one batched fetch. */
export function proofPlanNodes(plan: ProofPlan): SubtreeCoord[] {
  const seen = new Set<string>();
  const out: SubtreeCoord[] = [];
  for (const entry of plan) {
    for (const coord of entry) {
      const key = subtreeKey(coord.level, coord.index);
      if (!seen.has(key)) {
        seen.add(key);
        out.push(coord);
      }
    }
  }
  return out;
}

/** Proof hashes from fetched subtree hashes; throws MerkleError MERKLE_MISSING_NODE on a gap. */
export function assembleProof(plan: ProofPlan, nodes: SubtreeSource): Uint8Array[] {
  if (!Array.isArray(plan)) throw new TypeError("plan must be an array");
  if (typeof nodes !== "function" && !(nodes instanceof Map)) {
    throw new TypeError("nodes must be a function or a Map");
  }
  return plan.map((entry) => foldRange(entry, nodes));
}
