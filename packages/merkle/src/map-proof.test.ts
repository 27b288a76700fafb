import { describe, expect, it } from "vitest";
import { MerkleError } from "./errors.js";
import vectors from "./fixtures/index-map.json" with { type: "json" };
import { EMPTY_MAP_NODE, emptyMapRoot } from "./map-hash.js";
import { decodeMapProof, encodeMapProof, type MapProof, verifyMapProof } from "./map-proof.js";
import { SparseMerkleMap } from "./sparse-merkle-map.js";
import { flipBit, hex, unhex } from "./test-support/reference.js";

interface Entry {
  key: string;
  value: string;
}

function mapOf(entries: readonly Entry[]): SparseMerkleMap {
  const map = new SparseMerkleMap();
  for (const e of entries) map.set(unhex(e.key), unhex(e.value));
  return map;
}

/** Each vector case with the map it was computed over and the value it proves. */
const cases = vectors.proofs.map((c) => {
  const maps: Record<string, Entry[]> = {
    entries: vectors.entries,
    deepEntries: vectors.deepEntries,
    none: [],
  };
  const entries = maps[c.map] as Entry[];
  const value = entries.find((e) => e.key === c.key)?.value;
  return { ...c, entries, value: value === undefined ? null : unhex(value) };
});

describe("map proofs against the vectors", () => {
  it("reproduce the vector roots", () => {
    expect(hex(mapOf(vectors.entries).root())).toBe(vectors.root);
    expect(hex(mapOf(vectors.entries.slice(0, 1)).root())).toBe(vectors.singleEntryRoot);
    expect(hex(mapOf(vectors.deepEntries).root())).toBe(vectors.deepRoot);
    expect(hex(mapOf([]).root())).toBe(vectors.emptyRoot);
  });

  it("cover every way a proof ends", () => {
    expect(new Set(cases.map((c) => c.terminal))).toEqual(new Set(["key", "empty", "other"]));
    expect(cases.some((c) => c.depth === 256)).toBe(true);
  });

  for (const c of cases) {
    it(`reproduce and verify: ${c.name}`, () => {
      const map = mapOf(c.entries);
      const key = unhex(c.key);
      const proof = map.prove(key);
      expect(hex(encodeMapProof(proof))).toBe(c.proof);
      expect(proof.depth).toBe(c.depth);
      expect(proof.other !== undefined).toBe(c.terminal === "other");
      const decoded = decodeMapProof(unhex(c.proof));
      expect(decoded).toEqual(proof);
      const root = map.root();
      expect(verifyMapProof(root, key, c.value, decoded)).toBe(true);
      // The same proof never shows the opposite claim.
      const opposite = c.value === null ? unhex(vectors.entries[0]?.value ?? "") : null;
      expect(verifyMapProof(root, key, opposite, decoded)).toBe(false);
    });
  }

  it("the empty map proves every key absent at depth 0", () => {
    const proof = new SparseMerkleMap().prove(unhex(vectors.entries[0]?.key ?? ""));
    expect(proof).toEqual({ depth: 0, bitmap: new Uint8Array(32), siblings: [] });
    expect(hex(encodeMapProof(proof))).toBe(`0000${"00".repeat(32)}`);
    expect(verifyMapProof(emptyMapRoot(), unhex(vectors.entries[0]?.key ?? ""), null, proof)).toBe(
      true,
    );
  });
});

describe("verifyMapProof on malformed and non-canonical proofs", () => {
  const map = mapOf(vectors.entries);
  const root = map.root();
  const bob = vectors.entries[1] as Entry;
  const key = unhex(bob.key);
  const value = unhex(bob.value);
  const good = map.prove(key);
  const otherCase = cases.find((c) => c.terminal === "other") as (typeof cases)[number];
  const absentKey = unhex(otherCase.key);
  const absent = map.prove(absentKey);

  it("holds for the unmodified proofs", () => {
    expect(good.depth).toBeGreaterThan(1);
    expect(verifyMapProof(root, key, value, good)).toBe(true);
    expect(verifyMapProof(root, absentKey, null, absent)).toBe(true);
  });

  it("returns false instead of throwing", () => {
    const cases: unknown[] = [
      { ...good, depth: -1 },
      { ...good, depth: 257 },
      { ...good, depth: 1.5 },
      { ...good, depth: "3" },
      { ...good, depth: good.depth + 1 },
      { ...good, depth: good.depth - 1 },
      { ...good, bitmap: new Uint8Array(31) },
      { ...good, bitmap: "x" },
      { ...good, siblings: "x" },
      { ...good, siblings: good.siblings.slice(1) },
      { ...good, siblings: [...good.siblings, root] },
      { ...good, siblings: [new Uint8Array(31), ...good.siblings.slice(1)] },
      { ...good, siblings: [null, ...good.siblings.slice(1)] },
      { ...good, other: { key: absentKey, value } },
    ];
    for (const proof of cases)
      expect(verifyMapProof(root, key, value, proof as MapProof)).toBe(false);
  });

  it("rejects a bitmap bit at or past the depth", () => {
    const bitmap = flipBit(good.bitmap, good.depth);
    const siblings = [...good.siblings, new Uint8Array(32).fill(9)];
    expect(verifyMapProof(root, key, value, { ...good, bitmap, siblings })).toBe(false);
  });

  it("rejects a listed empty sibling (non-canonical)", () => {
    const empty = new SparseMerkleMap();
    const bitmap = flipBit(new Uint8Array(32), 0);
    const proof = { depth: 1, bitmap, siblings: [EMPTY_MAP_NODE] };
    expect(verifyMapProof(empty.root(), key, null, proof)).toBe(false);
  });

  it("never proves a present key absent by naming it as the other key", () => {
    expect(verifyMapProof(root, key, null, { ...good, other: { key, value } })).toBe(false);
    const malformed = { ...absent, other: null } as unknown as MapProof;
    expect(verifyMapProof(root, absentKey, null, malformed)).toBe(false);
    const offPath = flipBit(absentKey, 0);
    expect(verifyMapProof(root, offPath, null, absent)).toBe(false);
    const { other: _dropped, ...withoutOther } = absent;
    expect(verifyMapProof(root, absentKey, null, withoutOther)).toBe(false);
  });

  it("throws for caller mistakes, naming the argument", () => {
    expect(() => verifyMapProof(new Uint8Array(1), key, value, good)).toThrow(/root/);
    expect(() => verifyMapProof(root, "k" as unknown as Uint8Array, value, good)).toThrow(/key/);
    expect(() => verifyMapProof(root, key, new Uint8Array(31), good)).toThrow(/value/);
    expect(() => verifyMapProof(root, key, value, null as unknown as MapProof)).toThrow(/proof/);
  });
});

describe("map proof binary form", () => {
  it("round-trips, with and without another key", () => {
    for (const c of cases) {
      const bytes = unhex(c.proof);
      expect(encodeMapProof(decodeMapProof(bytes))).toEqual(bytes);
    }
  });

  it("rejects malformed encodings with MERKLE_MALFORMED_PROOF", () => {
    const bytes = unhex(cases.find((c) => c.terminal === "other")?.proof ?? "");
    for (const bad of [
      bytes.slice(0, 33),
      bytes.slice(0, -1),
      bytes.slice(0, -32),
      Uint8Array.of(...bytes, ...new Uint8Array(32)),
      new Uint8Array(66).fill(0xff),
    ]) {
      let error: unknown;
      try {
        decodeMapProof(bad);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(MerkleError);
      expect((error as MerkleError).code).toBe("MERKLE_MALFORMED_PROOF");
    }
    expect(() => decodeMapProof("x" as unknown as Uint8Array)).toThrow(TypeError);
  });

  it("encoding rejects wrong inputs", () => {
    const bitmap = new Uint8Array(32);
    expect(() => encodeMapProof(null as unknown as MapProof)).toThrow(TypeError);
    expect(() => encodeMapProof({ depth: 1, bitmap, siblings: [new Uint8Array(1)] })).toThrow(
      /siblings\[0\]/,
    );
    expect(() => encodeMapProof({ depth: 0, bitmap: new Uint8Array(3), siblings: [] })).toThrow(
      /bitmap/,
    );
    expect(() => encodeMapProof({ depth: 300, bitmap, siblings: [] })).toThrow(/depth/);
    const other = { key: new Uint8Array(32), value: new Uint8Array(2) };
    expect(() => encodeMapProof({ depth: 0, bitmap, siblings: [], other })).toThrow(/other/);
  });
});
