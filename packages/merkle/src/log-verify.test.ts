import { describe, expect, it } from "vitest";
import vectors from "./fixtures/rfc9162.json" with { type: "json" };
import { verifyConsistency, verifyInclusion } from "./log-verify.js";
import { unhex } from "./test-support/reference.js";
import { emptyRoot, leafHash } from "./tree-hash.js";

const leaves = vectors.ct.leavesHex.map((h) => leafHash(unhex(h)));
const rootOf = (size: number) =>
  size === 0 ? emptyRoot() : unhex(vectors.ct.roots[size - 1]?.root ?? "");
const junk = new Uint8Array(32).fill(0xaa);

describe("verifyInclusion", () => {
  it.each(vectors.ct.inclusion)("accepts the CT proof of leaf $leafIndex in $treeSize", (v) => {
    const proof = v.proof.map(unhex);
    const leaf = leaves[v.leafIndex] as Uint8Array;
    const root = rootOf(v.treeSize);
    expect(verifyInclusion(leaf, v.leafIndex, v.treeSize, proof, root)).toBe(true);

    // Mutations from the CT verifier tests: wrong index, size, leaf, root, path.
    expect(verifyInclusion(leaf, v.leafIndex + 1, v.treeSize, proof, root)).toBe(false);
    expect(verifyInclusion(leaf, v.leafIndex ^ 2, v.treeSize, proof, root)).toBe(false);
    expect(verifyInclusion(leaf, v.leafIndex, v.treeSize * 2, proof, root)).toBe(false);
    expect(verifyInclusion(leaf, v.leafIndex, Math.floor(v.treeSize / 2), proof, root)).toBe(false);
    expect(verifyInclusion(junk, v.leafIndex, v.treeSize, proof, root)).toBe(false);
    expect(verifyInclusion(leaf, v.leafIndex, v.treeSize, proof, emptyRoot())).toBe(false);
    for (let j = 0; j < proof.length; j++) {
      const wrong = proof.slice();
      wrong[j] = emptyRoot();
      expect(verifyInclusion(leaf, v.leafIndex, v.treeSize, wrong, root)).toBe(false);
    }
    expect(verifyInclusion(leaf, v.leafIndex, v.treeSize, [...proof, root], root)).toBe(false);
    expect(verifyInclusion(leaf, v.leafIndex, v.treeSize, [root, ...proof], root)).toBe(false);
    if (proof.length > 0) {
      expect(verifyInclusion(leaf, v.leafIndex, v.treeSize, proof.slice(1), root)).toBe(false);
    }
  });

  it("returns false for malformed proofs instead of throwing", () => {
    const root = rootOf(8);
    const proof = vectors.ct.inclusion[1]?.proof.map(unhex) ?? [];
    const bad = [new Uint8Array(31), "x", null, ...proof.slice(1)] as unknown as Uint8Array[];
    for (const element of bad.slice(0, 3)) {
      expect(
        verifyInclusion(leaves[0] as Uint8Array, 0, 8, [element, ...proof.slice(1)], root),
      ).toBe(false);
    }
    expect(verifyInclusion(leaves[0] as Uint8Array, 8, 8, proof, root)).toBe(false);
    expect(verifyInclusion(leaves[0] as Uint8Array, 0, 0, [], emptyRoot())).toBe(false);
  });

  it("throws for caller mistakes, naming the argument", () => {
    const r = emptyRoot();
    expect(() => verifyInclusion(new Uint8Array(31), 0, 1, [], r)).toThrow(/leafHash/);
    expect(() => verifyInclusion(r, -1, 1, [], r)).toThrow(/index/);
    expect(() => verifyInclusion(r, 0, 1.5, [], r)).toThrow(/treeSize/);
    expect(() => verifyInclusion(r, 0, 1, "p" as unknown as Uint8Array[], r)).toThrow(/proof/);
    expect(() => verifyInclusion(r, 0, 1, [], "r" as unknown as Uint8Array)).toThrow(/root/);
  });
});

describe("verifyConsistency", () => {
  it.each(vectors.ct.consistency)("accepts the CT proof $from -> $to", (v) => {
    const proof = v.proof.map(unhex);
    const oldRoot = rootOf(v.from);
    const newRoot = rootOf(v.to);
    expect(verifyConsistency(v.from, v.to, oldRoot, newRoot, proof)).toBe(true);
    if (proof.length === 0) return;

    expect(verifyConsistency(v.from - 1, v.to, oldRoot, newRoot, proof)).toBe(false);
    expect(verifyConsistency(v.from + 1, v.to, oldRoot, newRoot, proof)).toBe(false);
    expect(verifyConsistency(v.from ^ 2, v.to, oldRoot, newRoot, proof)).toBe(false);
    expect(verifyConsistency(v.from, v.to * 2, oldRoot, newRoot, proof)).toBe(false);
    expect(verifyConsistency(v.from, v.to, oldRoot, junk, proof)).toBe(false);
    expect(verifyConsistency(v.from, v.to, junk, newRoot, proof)).toBe(false);
    expect(verifyConsistency(v.from, v.to, newRoot, oldRoot, proof)).toBe(false);
    expect(verifyConsistency(v.from, v.to, oldRoot, newRoot, [])).toBe(false);
    for (let j = 0; j < proof.length; j++) {
      const wrong = proof.slice();
      wrong[j] = emptyRoot();
      expect(verifyConsistency(v.from, v.to, oldRoot, newRoot, wrong)).toBe(false);
    }
    const last = proof[proof.length - 1] as Uint8Array;
    expect(verifyConsistency(v.from, v.to, oldRoot, newRoot, [...proof, last])).toBe(false);
    expect(verifyConsistency(v.from, v.to, oldRoot, newRoot, proof.slice(0, -1))).toBe(false);
    expect(verifyConsistency(v.from, v.to, oldRoot, newRoot, [junk, ...proof])).toBe(false);
  });

  it("treats from = 0 and from = to as empty proofs", () => {
    const r8 = rootOf(8);
    expect(verifyConsistency(0, 0, emptyRoot(), emptyRoot(), [])).toBe(true);
    expect(verifyConsistency(0, 0, emptyRoot(), junk, [])).toBe(false);
    expect(verifyConsistency(0, 0, junk, junk, [])).toBe(false);
    expect(verifyConsistency(0, 8, emptyRoot(), r8, [])).toBe(true);
    expect(verifyConsistency(0, 8, r8, r8, [])).toBe(false);
    expect(verifyConsistency(0, 8, emptyRoot(), r8, [r8])).toBe(false);
    expect(verifyConsistency(8, 8, r8, r8, [])).toBe(true);
    expect(verifyConsistency(8, 8, r8, junk, [])).toBe(false);
    expect(verifyConsistency(8, 8, r8, r8, [r8])).toBe(false);
  });

  it("returns false for malformed proof elements", () => {
    const v = vectors.ct.consistency[2];
    const proof = (v?.proof ?? []).map(unhex);
    const bad = [new Uint8Array(33), ...proof.slice(1)];
    expect(verifyConsistency(6, 8, rootOf(6), rootOf(8), bad)).toBe(false);
    expect(
      verifyConsistency(6, 8, rootOf(6), rootOf(8), [
        7 as unknown as Uint8Array,
        ...proof.slice(1),
      ]),
    ).toBe(false);
  });

  it("throws for caller mistakes, naming the argument", () => {
    const r = emptyRoot();
    expect(() => verifyConsistency(2, 1, r, r, [])).toThrow(RangeError);
    expect(() => verifyConsistency(-1, 1, r, r, [])).toThrow(/from/);
    expect(() => verifyConsistency(0, 2 ** 53, r, r, [])).toThrow(/to/);
    expect(() => verifyConsistency(0, 1, new Uint8Array(0), r, [])).toThrow(/oldRoot/);
    expect(() => verifyConsistency(0, 1, r, null as unknown as Uint8Array, [])).toThrow(/newRoot/);
    expect(() => verifyConsistency(0, 1, r, r, {} as unknown as Uint8Array[])).toThrow(/proof/);
  });
});
