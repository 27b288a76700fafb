import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { verifyMapProof } from "./map-proof.js";
import { SparseMerkleMap } from "./sparse-merkle-map.js";
import { flipBit, hex, referenceMapRoot } from "./test-support/reference.js";

const hash = fc.uint8Array({ minLength: 32, maxLength: 32 });
type Entry = [Uint8Array, Uint8Array];

/** Distinct keys with values; the second key is made a neighbour of the first (deep branch). */
const entries = fc
  .uniqueArray(fc.tuple(hash, hash), { maxLength: 12, selector: ([k]) => hex(k) })
  .map(withNeighbour);

function withNeighbour(list: Entry[]): Entry[] {
  const [first, second, ...rest] = list;
  if (first === undefined || second === undefined) return list;
  const near = flipBit(first[0], 255);
  return [first, [near, second[1]], ...rest.filter(([k]) => hex(k) !== hex(near))];
}

function build(list: readonly Entry[]): SparseMerkleMap {
  const map = new SparseMerkleMap();
  for (const [k, v] of list) map.set(k, v);
  return map;
}

describe("SparseMerkleMap (properties)", () => {
  it("root equals the recursive definition over the key set", () => {
    fc.assert(
      fc.property(entries, (list) => {
        const reference = new Map(list.map(([k, v]) => [hex(k), [k, v] as Entry]));
        expect(build(list).root()).toEqual(referenceMapRoot(reference));
      }),
      { numRuns: 30 },
    );
  });

  it("membership proofs verify for present keys", () => {
    fc.assert(
      fc.property(entries, (list) => {
        const map = build(list);
        const root = map.root();
        for (const [k, v] of list) {
          expect(map.get(k)).toEqual(v);
          expect(verifyMapProof(root, k, v, map.prove(k))).toBe(true);
        }
      }),
      { numRuns: 30 },
    );
  });

  it("non-membership proofs verify for absent keys", () => {
    fc.assert(
      fc.property(entries, hash, (list, absent) => {
        fc.pre(!list.some(([k]) => hex(k) === hex(absent)));
        const map = build(list);
        expect(map.get(absent)).toBeUndefined();
        const proof = map.prove(absent);
        expect(verifyMapProof(map.root(), absent, null, proof)).toBe(true);
        for (const [, v] of list.slice(0, 1)) {
          expect(verifyMapProof(map.root(), absent, v, proof)).toBe(false);
        }
      }),
      { numRuns: 30 },
    );
  });

  it("any flipped bit of root, key, value, bitmap or sibling fails", () => {
    fc.assert(
      fc.property(entries, fc.nat(), fc.nat({ max: 255 }), (list, pick, bit) => {
        fc.pre(list.length > 0);
        const map = build(list);
        const root = map.root();
        const [k, v] = list[pick % list.length] as Entry;
        const proof = map.prove(k);
        expect(verifyMapProof(flipBit(root, bit), k, v, proof)).toBe(false);
        expect(verifyMapProof(root, flipBit(k, bit), v, proof)).toBe(false);
        expect(verifyMapProof(root, k, flipBit(v, bit), proof)).toBe(false);
        const bitmap = flipBit(proof.bitmap, bit);
        expect(verifyMapProof(root, k, v, { bitmap, siblings: proof.siblings })).toBe(false);
        if (proof.siblings.length > 0) {
          const siblings = proof.siblings.slice();
          const j = pick % siblings.length;
          siblings[j] = flipBit(siblings[j] as Uint8Array, bit);
          expect(verifyMapProof(root, k, v, { bitmap: proof.bitmap, siblings })).toBe(false);
        }
      }),
      { numRuns: 100 },
    );
  });

  it("root is independent of insertion order, and the last write wins", () => {
    fc.assert(
      fc.property(entries, fc.nat(), hash, (list, seed, newer) => {
        const shuffled = list
          .map((e, i) => ({ e, r: (i * 2654435761 + seed) % 4294967296 }))
          .sort((a, b) => a.r - b.r)
          .map(({ e }) => e);
        expect(build(shuffled).root()).toEqual(build(list).root());
        if (list.length > 0) {
          const [k] = list[0] as Entry;
          const updated = build(list);
          updated.set(k, newer);
          const direct = build([...list.slice(1), [k, newer]]);
          expect(updated.root()).toEqual(direct.root());
          expect(updated.size).toBe(list.length);
        }
      }),
      { numRuns: 30 },
    );
  });
});
