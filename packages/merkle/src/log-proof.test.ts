import { sha256 } from "@noble/hashes/sha2.js";
import { concatBytes, u64be } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { MerkleError } from "./errors.js";
import vectors from "./fixtures/rfc9162.json" with { type: "json" };
import {
  assembleProof,
  consistencyProof,
  consistencyProofPlan,
  inclusionProof,
  inclusionProofPlan,
  proofPlanNodes,
} from "./log-proof.js";
import { verifyConsistency, verifyInclusion } from "./log-verify.js";
import { MemoryTree } from "./memory-tree.js";
import { rootFromNodes, subtreeKey } from "./subtree.js";
import { hex, unhex } from "./test-support/reference.js";

function ctTree(): MemoryTree {
  const tree = new MemoryTree();
  for (const leaf of vectors.ct.leavesHex) tree.append(unhex(leaf));
  return tree;
}

describe("proof generation against the CT reference vectors", () => {
  const tree = ctTree();

  it.each(vectors.ct.inclusion)("inclusion of leaf $leafIndex in size $treeSize", (v) => {
    expect(inclusionProof(v.leafIndex, v.treeSize, tree.getNode).map(hex)).toEqual(v.proof);
  });

  it.each(vectors.ct.consistency)("consistency $from -> $to", (v) => {
    expect(consistencyProof(v.from, v.to, tree.getNode).map(hex)).toEqual(v.proof);
  });
});

describe("proof plans", () => {
  it("read only O(log n) complete subtrees, all inside the tree", () => {
    for (const size of [1, 2, 3, 7, 8, 9, 100, 1000, 2 ** 20 + 12345]) {
      const logn = Math.ceil(Math.log2(size)) || 1;
      for (const index of [0, Math.floor(size / 3), size - 1]) {
        const nodes = proofPlanNodes(inclusionProofPlan(index, size));
        expect(nodes.length).toBeLessThanOrEqual(2 * logn);
        for (const { level, index: i } of nodes)
          expect((i + 1) * 2 ** level).toBeLessThanOrEqual(size);
      }
      for (const from of [1, Math.floor(size / 2), size - 1]) {
        if (from === 0) continue;
        const nodes = proofPlanNodes(consistencyProofPlan(from, size));
        expect(nodes.length).toBeLessThanOrEqual(2 * logn + 1);
        for (const { level, index: i } of nodes)
          expect((i + 1) * 2 ** level).toBeLessThanOrEqual(size);
      }
    }
  });

  it("handle sizes near 2^53 without 32-bit arithmetic", () => {
    // Synthetic stored nodes: enough for the right edge, whose proofs only combine stored nodes.
    const getNode = (level: number, index: number) =>
      sha256(concatBytes(u64be(level), u64be(index)));
    const size = Number.MAX_SAFE_INTEGER; // 53 one-bits: 53 right-edge subtrees
    const last = size - 1;
    const proof = inclusionProof(last, size, getNode);
    expect(proof).toHaveLength(52);
    const root = rootFromNodes(size, getNode);
    expect(verifyInclusion(getNode(0, last), last, size, proof, root)).toBe(true);
    expect(verifyInclusion(getNode(0, last), last - 1, size, proof, root)).toBe(false);

    for (const from of [2 ** 52, size - 1]) {
      const consistency = consistencyProof(from, size, getNode);
      const oldRoot = rootFromNodes(from, getNode);
      expect(verifyConsistency(from, size, oldRoot, root, consistency)).toBe(true);
      expect(verifyConsistency(from, size, root, oldRoot, consistency)).toBe(false);
    }
  });

  it("assemble from a map filled by one batched fetch", () => {
    const tree = ctTree();
    const plan = inclusionProofPlan(5, 8);
    const fetched = new Map(
      proofPlanNodes(plan).map(({ level, index }) => [
        subtreeKey(level, index),
        tree.getNode(level, index),
      ]),
    );
    expect(assembleProof(plan, fetched)).toEqual(tree.inclusionProof(5, 8));
  });

  it("report a missing node with MERKLE_MISSING_NODE", () => {
    const plan = consistencyProofPlan(6, 8);
    const error = (() => {
      try {
        assembleProof(plan, new Map());
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(MerkleError);
    expect((error as MerkleError).code).toBe("MERKLE_MISSING_NODE");
  });

  it("are empty for trivial consistency", () => {
    expect(consistencyProofPlan(0, 0)).toEqual([]);
    expect(consistencyProofPlan(0, 9)).toEqual([]);
    expect(consistencyProofPlan(9, 9)).toEqual([]);
    expect(inclusionProofPlan(0, 1)).toEqual([]);
  });

  it("reject caller mistakes", () => {
    expect(() => inclusionProofPlan(3, 3)).toThrow(RangeError);
    expect(() => inclusionProofPlan(0, 0)).toThrow(RangeError);
    expect(() => inclusionProofPlan(-1, 3)).toThrow(/index/);
    expect(() => inclusionProofPlan(0, 2 ** 53)).toThrow(/treeSize/);
    expect(() => consistencyProofPlan(4, 3)).toThrow(RangeError);
    expect(() => consistencyProofPlan(1.5, 3)).toThrow(/from/);
    expect(() => consistencyProofPlan(1, "3" as unknown as number)).toThrow(TypeError);
    expect(() => assembleProof("x" as unknown as [], new Map())).toThrow(TypeError);
    expect(() => assembleProof([], {} as unknown as Map<string, Uint8Array>)).toThrow(TypeError);
    expect(() => assembleProof([[{ level: 0, index: 0 }]], () => new Uint8Array(31))).toThrow(
      RangeError,
    );
  });
});
