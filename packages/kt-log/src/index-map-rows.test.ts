import { sha256 } from "@noble/hashes/sha2.js";
import { emptyMapRoot, mapKey, mapNodeKey, SparseMerkleMap, verifyMapProof } from "@svc/merkle";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IndexMapReplica } from "./index-map-replica.js";
import { type MapRow, planMapUpdate, readRowsFor } from "./index-map-rows.js";

const value = (n: number) => sha256(Uint8Array.of(n));

/** Keys sharing long prefixes, so single-key subtrees split deep in the map. */
function nearKey(base: Uint8Array, bit: number): Uint8Array {
  const key = base.slice();
  key[bit >> 3] = (key[bit >> 3] as number) ^ (0x80 >> (bit & 7));
  return key;
}

describe("index map rows", () => {
  it("give the reference map's root and proofs after every update", { timeout: 60_000 }, () => {
    const base = mapKey("base");
    const keyArb = fc.oneof(
      fc.nat(40).map((n) => mapKey(`addr${n}`)),
      fc.nat(255).map((bit) => nearKey(base, bit)),
      fc.constant(base),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(keyArb, fc.nat(255)), { maxLength: 12 }),
        keyArb,
        (ops, probe) => {
          const reference = new SparseMerkleMap();
          const store = new IndexMapReplica();
          for (const [key, n] of ops) {
            reference.set(key, value(n));
            store.set(key, value(n));
            expect(store.root).toEqual(reference.root());
          }
          for (const key of [probe, ...ops.map(([key]) => key)]) {
            const proof = store.prove(key);
            expect(proof).toEqual(reference.prove(key));
            expect(verifyMapProof(store.root, key, reference.get(key) ?? null, proof)).toBe(true);
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it("writes about log2(n) + 3 rows per insert", () => {
    const store = new IndexMapReplica();
    let written = 0;
    for (let i = 0; i < 256; i++) written += store.set(mapKey(`user${i}`), value(i)).length;
    expect(written / 256).toBeLessThan(14);
    expect(store.rowCount).toBeLessThan(3 * 256);
    expect(store.set(mapKey("user5"), value(7)).length).toBeLessThan(30);
  });

  it("splits a single-key subtree at the deepest level (keys differing only in bit 255)", () => {
    const a = mapKey("a");
    const b = nearKey(a, 255);
    const reference = new SparseMerkleMap();
    const store = new IndexMapReplica();
    for (const key of [a, b]) {
      reference.set(key, value(1));
      store.set(key, value(1));
    }
    expect(store.root).toEqual(reference.root());
    expect(store.rowsFor(a).get(mapNodeKey(256, a))?.leafKey).toEqual(a);
    expect(store.prove(b)).toEqual(reference.prove(b));
  });

  it("reads the deep part of a path only for keys whose stored path reaches depth 64", async () => {
    const a = mapKey("deep");
    const replica = new IndexMapReplica();
    replica.set(a, value(1));
    replica.set(nearKey(a, 200), value(2));
    replica.set(mapKey("shallow"), value(3));
    for (const [key, reads] of [
      [nearKey(a, 230), 2],
      [mapKey("other"), 1],
    ] as const) {
      const stored = replica.rowsFor(key);
      const asked: number[] = [];
      const rows = await readRowsFor([key], async (coords) => {
        asked.push(coords.length);
        const out = new Map<string, MapRow>();
        for (const { depth, prefix } of coords) {
          const row = stored.get(mapNodeKey(depth, prefix));
          if (row !== undefined) out.set(mapNodeKey(depth, prefix), row);
        }
        return out;
      });
      expect(asked).toHaveLength(reads);
      expect(rows).toEqual(stored);
      expect(planMapUpdate(key, value(4), rows)).toEqual(planMapUpdate(key, value(4), stored));
    }
  });
});
