import { concatBytes, u64be } from "@svc/canonical";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { verifyConsistency, verifyInclusion } from "./log-verify.js";
import { MemoryTree } from "./memory-tree.js";
import {
  flipBit,
  referenceConsistency,
  referencePath,
  referenceRoot,
} from "./test-support/reference.js";
import { leafHash } from "./tree-hash.js";

/** A log of `size` leaves whose contents depend on `salt`, with its leaf hashes. */
function buildLog(size: number, salt: Uint8Array): { tree: MemoryTree; hashes: Uint8Array[] } {
  const tree = new MemoryTree();
  for (let i = 0; i < size; i++) tree.append(concatBytes(salt, u64be(i)));
  const hashes = Array.from({ length: size }, (_, i) => leafHash(concatBytes(salt, u64be(i))));
  return { tree, hashes };
}

const salt = fc.uint8Array({ maxLength: 8 });
const logSize = fc.integer({ min: 1, max: 64 });

/** A tree size and a leaf index inside it. */
const sizeAndIndex = logSize.chain((size) =>
  fc.record({ size: fc.constant(size), index: fc.nat({ max: size - 1 }) }),
);

/** Two sizes with from <= to. */
const sizePair = fc
  .tuple(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 0, max: 64 }))
  .map(([a, b]) => ({ from: Math.min(a, b), to: Math.max(a, b) }));

describe("log proofs (properties)", () => {
  it("every leaf's inclusion proof verifies at every size", () => {
    fc.assert(
      fc.property(logSize, salt, (size, s) => {
        const { tree, hashes } = buildLog(size, s);
        for (let n = 1; n <= size; n++) {
          const root = tree.root(n);
          for (let i = 0; i < n; i++) {
            const proof = tree.inclusionProof(i, n);
            expect(verifyInclusion(hashes[i] as Uint8Array, i, n, proof, root)).toBe(true);
          }
        }
      }),
      { numRuns: 15 },
    );
  });

  it("proofs read from stored subtrees equal those computed from the full leaf list", () => {
    fc.assert(
      fc.property(logSize, salt, (size, s) => {
        // Stored subtrees of a longer log, read at the past size `size`.
        const { tree, hashes } = buildLog(size + 5, s);
        const prefix = hashes.slice(0, size);
        expect(tree.root(size)).toEqual(referenceRoot(prefix));
        for (let i = 0; i < size; i++) {
          expect(tree.inclusionProof(i, size)).toEqual(referencePath(i, prefix));
        }
        for (let m = 0; m <= size; m++) {
          expect(tree.consistencyProof(m, size)).toEqual(referenceConsistency(m, prefix));
        }
      }),
      { numRuns: 20 },
    );
  });

  it("flipping any bit of the proof, the root or the leaf fails inclusion", () => {
    fc.assert(
      fc.property(sizeAndIndex, salt, fc.nat(), fc.nat({ max: 255 }), (at, s, pick, bit) => {
        const { tree, hashes } = buildLog(at.size, s);
        const leaf = hashes[at.index] as Uint8Array;
        const proof = tree.inclusionProof(at.index, at.size);
        const root = tree.root();
        expect(verifyInclusion(leaf, at.index, at.size, proof, root)).toBe(true);
        expect(verifyInclusion(flipBit(leaf, bit), at.index, at.size, proof, root)).toBe(false);
        expect(verifyInclusion(leaf, at.index, at.size, proof, flipBit(root, bit))).toBe(false);
        if (proof.length > 0) {
          const j = pick % proof.length;
          const bad = proof.slice();
          bad[j] = flipBit(bad[j] as Uint8Array, bit);
          expect(verifyInclusion(leaf, at.index, at.size, bad, root)).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("flipping every bit of every proof element fails (size 13, every leaf)", () => {
    const { tree, hashes } = buildLog(13, Uint8Array.of(13));
    const root = tree.root();
    for (let i = 0; i < 13; i++) {
      const proof = tree.inclusionProof(i);
      for (let j = 0; j < proof.length; j++) {
        for (let bit = 0; bit < 256; bit++) {
          const bad = proof.slice();
          bad[j] = flipBit(bad[j] as Uint8Array, bit);
          expect(verifyInclusion(hashes[i] as Uint8Array, i, 13, bad, root)).toBe(false);
        }
      }
    }
  });

  it("consistency holds between every pair of sizes", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 64 }), salt, (size, s) => {
        const { tree } = buildLog(size, s);
        for (let to = 0; to <= size; to++) {
          for (let from = 0; from <= to; from++) {
            const proof = tree.consistencyProof(from, to);
            expect(verifyConsistency(from, to, tree.root(from), tree.root(to), proof)).toBe(true);
          }
        }
      }),
      { numRuns: 10 },
    );
  });

  it("consistency with a wrong root or a flipped proof bit fails", () => {
    fc.assert(
      fc.property(sizePair, salt, fc.nat(), fc.nat({ max: 255 }), ({ from, to }, s, pick, bit) => {
        const { tree } = buildLog(to, s);
        const proof = tree.consistencyProof(from, to);
        const oldRoot = tree.root(from);
        const newRoot = tree.root(to);
        expect(verifyConsistency(from, to, oldRoot, newRoot, proof)).toBe(true);
        expect(verifyConsistency(from, to, flipBit(oldRoot, bit), newRoot, proof)).toBe(false);
        if (from > 0 || to === 0) {
          expect(verifyConsistency(from, to, oldRoot, flipBit(newRoot, bit), proof)).toBe(false);
        }
        if (proof.length > 0) {
          const j = pick % proof.length;
          const bad = proof.slice();
          bad[j] = flipBit(bad[j] as Uint8Array, bit);
          expect(verifyConsistency(from, to, oldRoot, newRoot, bad)).toBe(false);
        }
        // The root of another log of the same sizes is never consistent (unless from = 0).
        if (from > 0) {
          const other = buildLog(to, concatBytes(s, Uint8Array.of(1))).tree;
          expect(verifyConsistency(from, to, other.root(from), newRoot, proof)).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });
});
