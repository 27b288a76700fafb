import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import vectors from "./fixtures/rfc9162.json" with { type: "json" };
import { hex, referenceRoot, unhex } from "./test-support/reference.js";
import { emptyRoot, leafHash, nodeHash, rootFromLeafHashes } from "./tree-hash.js";

const leaves = vectors.ct.leavesHex.map((h) => leafHash(unhex(h)));

describe("RFC 9162 tree hashing", () => {
  it("empty root is SHA-256 of nothing", () => {
    expect(hex(emptyRoot())).toBe(vectors.ct.emptyRoot);
    expect(hex(rootFromLeafHashes([]))).toBe(vectors.ct.emptyRoot);
  });

  it("leaf and node hashes use the 0x00 and 0x01 prefixes", () => {
    const l = Uint8Array.of(1, 2, 3);
    expect(leafHash(l)).toEqual(sha256(Uint8Array.of(0, 1, 2, 3)));
    const a = sha256(Uint8Array.of(1));
    const b = sha256(Uint8Array.of(2));
    expect(nodeHash(a, b)).toEqual(sha256(Uint8Array.of(1, ...a, ...b)));
  });

  it.each(vectors.ct.roots)("reproduces the CT reference root of size $treeSize", (v) => {
    expect(hex(rootFromLeafHashes(leaves.slice(0, v.treeSize)))).toBe(v.root);
  });

  it("reproduces the spec STH root of leaves a..e", () => {
    const hashes = vectors.spec.leavesUtf8.map((s) => leafHash(new TextEncoder().encode(s)));
    expect(hashes).toHaveLength(vectors.spec.treeSize);
    const root = rootFromLeafHashes(hashes);
    expect(root).toEqual(Uint8Array.from(atob(vectors.spec.rootHash), (c) => c.charCodeAt(0)));
  });

  it("agrees with the recursive MTH for sizes 0..70", () => {
    const many = Array.from({ length: 70 }, (_, i) => leafHash(Uint8Array.of(i)));
    for (let n = 0; n <= many.length; n++) {
      expect(rootFromLeafHashes(many.slice(0, n))).toEqual(referenceRoot(many.slice(0, n)));
    }
  });

  it("rejects wrong inputs, naming the argument", () => {
    const h = emptyRoot();
    expect(() => leafHash("a" as unknown as Uint8Array)).toThrow(/leaf/);
    expect(() => nodeHash(h, new Uint8Array(31))).toThrow(RangeError);
    expect(() => nodeHash([] as unknown as Uint8Array, h)).toThrow(/left/);
    expect(() => rootFromLeafHashes("x" as unknown as Uint8Array[])).toThrow(TypeError);
    expect(() => rootFromLeafHashes([h, new Uint8Array(33)])).toThrow(/hashes\[1\]/);
  });
});
