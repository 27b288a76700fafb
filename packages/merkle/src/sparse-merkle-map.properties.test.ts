import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mapKey, mapLeafHash } from "./map-hash.js";
import { mapNodeKey, mapNodePrefix } from "./map-path.js";
import { type MapEntry, type MapProof, verifyMapProof } from "./map-proof.js";
import { SparseMerkleMap } from "./sparse-merkle-map.js";
import { flipBit, hex, referenceMapProof, referenceMapRoot } from "./test-support/reference.js";

const hash = fc.uint8Array({ minLength: 32, maxLength: 32 });
const base = mapKey("base");
/** Keys that often share long prefixes, so single-key subtrees split deep in the map. */
const key = fc.oneof(
  hash,
  fc.nat(40).map((n) => mapKey(`addr${n}`)),
  fc.nat(255).map((bit) => flipBit(base, bit)),
  fc.constant(base),
);
const writes = fc.array(fc.tuple(key, hash), { maxLength: 14 });

/** The map's content after `ops`: the last write to a key wins. */
function entriesOf(ops: readonly [Uint8Array, Uint8Array][]): MapEntry[] {
  const latest = new Map<string, MapEntry>();
  for (const [k, v] of ops) latest.set(hex(k), { key: k, value: v });
  return [...latest.values()];
}

function build(ops: readonly [Uint8Array, Uint8Array][]): SparseMerkleMap {
  const map = new SparseMerkleMap();
  for (const [k, v] of ops) map.set(k, v);
  return map;
}

describe("SparseMerkleMap (properties)", () => {
  it("root and proofs equal the recursive definition after every write", () => {
    fc.assert(
      fc.property(writes, key, (ops, probe) => {
        const map = new SparseMerkleMap();
        for (const [i, [k, v]] of ops.entries()) {
          map.set(k, v);
          expect(map.root()).toEqual(referenceMapRoot(entriesOf(ops.slice(0, i + 1))));
        }
        const entries = entriesOf(ops);
        expect(map.size).toBe(entries.length);
        for (const k of [probe, ...entries.map((e) => e.key)]) {
          expect(map.prove(k)).toEqual(referenceMapProof(entries, k));
        }
      }),
      { numRuns: 60 },
    );
  });

  it("membership proofs verify for present keys, non-membership for absent ones", () => {
    fc.assert(
      fc.property(writes, key, (ops, probe) => {
        const map = build(ops);
        const root = map.root();
        for (const { key: k, value } of entriesOf(ops)) {
          expect(map.get(k)).toEqual(value);
          expect(verifyMapProof(root, k, value, map.prove(k))).toBe(true);
          expect(verifyMapProof(root, k, null, map.prove(k))).toBe(false);
        }
        if (map.get(probe) === undefined) {
          const proof = map.prove(probe);
          expect(verifyMapProof(root, probe, null, proof)).toBe(true);
          expect(verifyMapProof(root, probe, mapLeafHash(probe, probe), proof)).toBe(false);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("any flipped bit of root, key, value, bitmap, sibling or other entry fails", () => {
    fc.assert(
      fc.property(writes, key, fc.nat(), fc.nat({ max: 255 }), (ops, probe, pick, bit) => {
        const map = build(ops);
        const root = map.root();
        const entries = entriesOf(ops);
        const present = entries[pick % Math.max(entries.length, 1)];
        const [k, v] = present && pick % 2 === 0 ? [present.key, present.value] : [probe, null];
        const value = map.get(k) ?? null;
        fc.pre(v === null || value !== null);
        const proof = map.prove(k);
        const fails = (p: MapProof, r = root, kk = k, vv = value) =>
          expect(verifyMapProof(r, kk, vv, p)).toBe(false);
        fails(proof, flipBit(root, bit));
        // Another key on the same path below `depth` is just as absent: the proof holds for it too.
        if (value !== null || bit < proof.depth) fails(proof, root, flipBit(k, bit));
        if (value !== null) fails(proof, root, k, flipBit(value, bit));
        fails({ ...proof, bitmap: flipBit(proof.bitmap, bit) });
        if (proof.siblings.length > 0) {
          const siblings = proof.siblings.slice();
          const j = pick % siblings.length;
          siblings[j] = flipBit(siblings[j] as Uint8Array, bit);
          fails({ ...proof, siblings });
        }
        if (proof.other !== undefined) {
          fails({ ...proof, other: { ...proof.other, key: flipBit(proof.other.key, bit) } });
          fails({ ...proof, other: { ...proof.other, value: flipBit(proof.other.value, bit) } });
        }
      }),
      { numRuns: 150 },
    );
  });

  it("root is independent of write order", () => {
    fc.assert(
      fc.property(writes, fc.nat(), (ops, seed) => {
        const entries = entriesOf(ops);
        const shuffled = entries
          .map((e, i) => ({ e, r: (i * 2654435761 + seed) % 4294967296 }))
          .sort((a, b) => a.r - b.r)
          .map(({ e }): [Uint8Array, Uint8Array] => [e.key, e.value]);
        expect(build(shuffled).root()).toEqual(build(ops).root());
      }),
      { numRuns: 40 },
    );
  });
});

describe("SparseMerkleMap storage", () => {
  const value = (n: number) => mapLeafHash(mapKey(`v${n}`), mapKey(`w${n}`));

  it("writes about log2(n) + 3 rows per insert, and keeps about 2 rows per key", () => {
    const map = new SparseMerkleMap();
    let written = 0;
    for (let i = 0; i < 256; i++) written += map.set(mapKey(`user${i}`), value(i)).length;
    expect(written / 256).toBeLessThan(14);
    expect(map.rowCount).toBeLessThan(3 * 256);
    expect(map.set(mapKey("user5"), value(7)).length).toBeLessThan(30);
  });

  it("splits a single-key subtree at the deepest level (keys differing only in bit 255)", () => {
    const a = mapKey("a");
    const b = flipBit(a, 255);
    const map = build([
      [a, value(1)],
      [b, value(2)],
    ]);
    const rows = map.rowsFor(a);
    expect(rows.get(mapNodeKey(256, a))?.leafKey).toEqual(a);
    expect(rows.get(mapNodeKey(255, mapNodePrefix(a, 255)))?.leafKey).toBeNull();
    expect(map.prove(b).depth).toBe(256);
    expect(map.prove(b).siblings).toEqual([map.rowsFor(a).get(mapNodeKey(256, a))?.hash]);
  });

  it("copies what it is given and hands out copies", () => {
    const k = mapKey("k");
    const v = value(1);
    const map = build([[k, v]]);
    v.fill(0);
    expect(map.get(k)).toEqual(value(1));
    map.get(k)?.fill(0);
    map.root().fill(0);
    expect(map.get(k)).toEqual(value(1));
    expect(map.root()).toEqual(mapLeafHash(k, value(1)));
  });

  it("rejects wrong inputs", () => {
    const map = new SparseMerkleMap();
    expect(() => map.set(new Uint8Array(31), value(1))).toThrow(/key/);
    expect(() => map.set(mapKey("k"), new Uint8Array(3))).toThrow(/value/);
    expect(() => map.prove("k" as unknown as Uint8Array)).toThrow(/key/);
  });
});
