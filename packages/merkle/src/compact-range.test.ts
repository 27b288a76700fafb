import { concatBytes, u64be } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { CompactRange } from "./compact-range.js";
import { MerkleError } from "./errors.js";
import { rootNodes, subtreeKey } from "./subtree.js";
import { referenceRoot } from "./test-support/reference.js";
import { emptyRoot, leafHash } from "./tree-hash.js";

const hashes = Array.from({ length: 100 }, (_, i) => leafHash(concatBytes(u64be(i))));

describe("CompactRange", () => {
  it("starts empty with the empty root", () => {
    const range = new CompactRange();
    expect(range.size).toBe(0);
    expect(range.root()).toEqual(emptyRoot());
    expect(range.nodes()).toEqual([]);
  });

  it("tracks MTH after every append and keeps one node per set bit of the size", () => {
    const range = new CompactRange();
    for (let i = 0; i < hashes.length; i++) {
      range.append(hashes[i] as Uint8Array);
      expect(range.size).toBe(i + 1);
      expect(range.root()).toEqual(referenceRoot(hashes.slice(0, i + 1)));
      expect(range.nodes().map(({ level, index }) => ({ level, index }))).toEqual(rootNodes(i + 1));
    }
  });

  it("returns the leaf and every subtree it completes, bottom-up", () => {
    const range = new CompactRange();
    for (let i = 0; i < 7; i++) range.append(hashes[i] as Uint8Array);
    const created = range.append(hashes[7] as Uint8Array);
    expect(created.map(({ level, index }) => [level, index])).toEqual([
      [0, 7],
      [1, 3],
      [2, 1],
      [3, 0],
    ]);
    expect(created[3]?.hash).toEqual(referenceRoot(hashes.slice(0, 8)));
    expect(created[2]?.hash).toEqual(referenceRoot(hashes.slice(4, 8)));
  });

  it("over a whole log, emits each complete subtree exactly once", () => {
    const range = new CompactRange();
    const seen = new Map<string, Uint8Array>();
    for (const h of hashes) {
      for (const node of range.append(h)) {
        const key = subtreeKey(node.level, node.index);
        expect(seen.has(key)).toBe(false);
        seen.set(key, node.hash);
      }
    }
    // A log of n leaves has floor(n / 2^l) complete subtrees at each level l.
    let expected = 0;
    for (let l = 0; 2 ** l <= hashes.length; l++) expected += Math.floor(hashes.length / 2 ** l);
    expect(seen.size).toBe(expected);
    expect(seen.get("2:5")).toEqual(referenceRoot(hashes.slice(20, 24)));
  });

  it("restores from stored nodes and continues identically", () => {
    const stored = new Map<string, Uint8Array>();
    const original = new CompactRange();
    for (const h of hashes.slice(0, 37)) {
      for (const n of original.append(h)) stored.set(subtreeKey(n.level, n.index), n.hash);
    }
    const restored = CompactRange.fromNodes(37, stored);
    expect(restored.root()).toEqual(original.root());
    for (const h of hashes.slice(37)) {
      expect(restored.append(h)).toEqual(original.append(h));
    }
    expect(restored.root()).toEqual(referenceRoot(hashes));
    expect(CompactRange.fromNodes(0, new Map()).root()).toEqual(emptyRoot());
  });

  it("does not alias caller arrays", () => {
    const range = new CompactRange();
    const h = hashes[0]?.slice() as Uint8Array;
    range.append(h);
    h.fill(0);
    expect(range.root()).toEqual(hashes[0]);
    range.root().fill(1);
    expect(range.root()).toEqual(hashes[0]);
  });

  it("rejects wrong inputs", () => {
    const range = new CompactRange();
    expect(() => range.append(new Uint8Array(31))).toThrow(/leafHash/);
    expect(() => range.append("x" as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => CompactRange.fromNodes(3, new Map())).toThrow(MerkleError);
    expect(() => CompactRange.fromNodes(1, () => new Uint8Array(2))).toThrow(RangeError);
    expect(() => CompactRange.fromNodes(-1, new Map())).toThrow(RangeError);
  });
});
