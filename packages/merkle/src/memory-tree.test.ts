import { describe, expect, it } from "vitest";
import { MerkleError } from "./errors.js";
import vectors from "./fixtures/rfc9162.json" with { type: "json" };
import { MemoryTree } from "./memory-tree.js";
import { hex, unhex } from "./test-support/reference.js";
import { emptyRoot, leafHash } from "./tree-hash.js";

describe("MemoryTree", () => {
  it("reproduces the CT roots at every past size", () => {
    const tree = new MemoryTree();
    expect(tree.root()).toEqual(emptyRoot());
    for (const [i, leaf] of vectors.ct.leavesHex.entries()) {
      expect(tree.append(unhex(leaf))).toBe(i);
    }
    expect(tree.size).toBe(8);
    expect(tree.root(0)).toEqual(emptyRoot());
    for (const v of vectors.ct.roots) expect(hex(tree.root(v.treeSize))).toBe(v.root);
    expect(tree.leafHash(3)).toEqual(leafHash(unhex("2021")));
  });

  it("answers from complete subtrees only", () => {
    const tree = new MemoryTree();
    for (let i = 0; i < 5; i++) tree.append(Uint8Array.of(i));
    expect(() => tree.getNode(1, 2)).toThrow(MerkleError); // leaves 4..5 are not complete yet
    expect(tree.getNode(2, 0)).toBeInstanceOf(Uint8Array);
  });

  it("rejects sizes beyond the log and bad indices", () => {
    const tree = new MemoryTree();
    tree.append(Uint8Array.of(1));
    expect(() => tree.root(2)).toThrow(/treeSize/);
    expect(() => tree.inclusionProof(0, 2)).toThrow(RangeError);
    expect(() => tree.inclusionProof(1)).toThrow(/index/);
    expect(() => tree.consistencyProof(0, 2)).toThrow(/to/);
    expect(() => tree.leafHash(1)).toThrow(RangeError);
    expect(() => tree.append("x" as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => tree.appendLeafHash(new Uint8Array(3))).toThrow(RangeError);
  });
});
