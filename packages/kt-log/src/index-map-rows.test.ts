import { sha256 } from "@noble/hashes/sha2.js";
import { type MapRow, mapKey, mapNodeKey, planMapUpdate, SparseMerkleMap } from "@svc/merkle";
import { describe, expect, it } from "vitest";
import { readRowsFor, shallowDepth } from "./index-map-rows.js";

const value = (n: number) => sha256(Uint8Array.of(n));

function nearKey(base: Uint8Array, bit: number): Uint8Array {
  const key = base.slice();
  key[bit >> 3] = (key[bit >> 3] as number) ^ (0x80 >> (bit & 7));
  return key;
}

describe("index map rows read from storage", () => {
  it("reads about log2(n) + 8 levels first", () => {
    expect(shallowDepth(0)).toBe(8);
    expect(shallowDepth(1000)).toBe(18);
    expect(shallowDepth(2 ** 40)).toBe(49);
    expect(shallowDepth(Number.MAX_SAFE_INTEGER)).toBe(61);
  });

  it("reads the deep part of a path only for keys whose stored path reaches the first depth", async () => {
    const a = mapKey("deep");
    const replica = new SparseMerkleMap();
    replica.set(a, value(1));
    replica.set(nearKey(a, 200), value(2));
    replica.set(mapKey("shallow"), value(3));
    for (const [key, reads] of [
      [nearKey(a, 230), 2],
      [mapKey("other"), 1],
    ] as const) {
      const stored = replica.rowsFor(key);
      const asked: number[] = [];
      const rows = await readRowsFor([key], 64, async (coords) => {
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
