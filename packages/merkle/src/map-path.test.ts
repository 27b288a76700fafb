import { describe, expect, it } from "vitest";
import { MAP_DEPTH, mapDefaultHash, mapKey } from "./map-hash.js";
import {
  type MapNode,
  mapNodeKey,
  mapNodePrefix,
  mapProofFromSiblings,
  mapSiblingNodes,
  mapUpdatePath,
} from "./map-path.js";
import { verifyMapProof } from "./map-proof.js";
import { SparseMerkleMap } from "./sparse-merkle-map.js";
import { hex } from "./test-support/reference.js";
import { leafHash } from "./tree-hash.js";

const key = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 0xa5) & 0xff);
const value = leafHash(Uint8Array.of(1));

/** A row table as a server would hold it: (depth, prefix hex) -> hash. */
class RowTable {
  readonly rows = new Map<string, Uint8Array>();
  reads = 0;
  readonly get = (depth: number, prefix: Uint8Array): Uint8Array | undefined => {
    this.reads += 1;
    return this.rows.get(mapNodeKey(depth, prefix));
  };
  write(nodes: readonly MapNode[]): void {
    for (const n of nodes) this.rows.set(mapNodeKey(n.depth, n.prefix), n.hash);
  }
}

describe("map node coordinates", () => {
  it("prefixes keep `depth` bits and zero the rest", () => {
    expect(mapNodePrefix(key, 0)).toEqual(new Uint8Array(0));
    expect(hex(mapNodePrefix(key, 3))).toBe("a0"); // 0xa5 = 1010 0101
    expect(hex(mapNodePrefix(key, 8))).toBe("a5");
    expect(hex(mapNodePrefix(key, 12))).toBe("a5c0"); // 0xca = 1100 1010
    expect(mapNodePrefix(key, MAP_DEPTH)).toEqual(key);
  });

  it("lists the 256 siblings top-down, each the path prefix with its last bit flipped", () => {
    const siblings = mapSiblingNodes(key);
    expect(siblings).toHaveLength(256);
    expect(siblings.map((s) => s.depth)).toEqual(Array.from({ length: 256 }, (_, i) => i + 1));
    expect(hex(siblings[0]?.prefix ?? new Uint8Array())).toBe("00"); // first bit 1 -> 0
    expect(hex(siblings[2]?.prefix ?? new Uint8Array())).toBe("80"); // 101 -> 100
    const last = siblings[255]?.prefix ?? new Uint8Array();
    expect(last.slice(0, 31)).toEqual(key.slice(0, 31));
    expect(last[31]).toBe((key[31] as number) ^ 1);
  });

  it("node keys encode depth and prefix", () => {
    expect(mapNodeKey(12, Uint8Array.of(0xa5, 0xc0))).toBe("12:a5c0");
    expect(mapNodeKey(0, new Uint8Array(0))).toBe("0:");
  });
});

describe("storage-backed updates and proofs", () => {
  it("an update reads 256 sibling rows and writes 257 path rows, ending at the root", () => {
    const table = new RowTable();
    const path = mapUpdatePath(key, value, table.get);
    expect(table.reads).toBe(256);
    expect(path).toHaveLength(257);
    expect(path.map((n) => n.depth)).toEqual(Array.from({ length: 257 }, (_, i) => 256 - i));
    for (const n of path) expect(n.prefix).toEqual(mapNodePrefix(key, n.depth));
    const map = new SparseMerkleMap();
    map.set(key, value);
    expect(path[256]?.hash).toEqual(map.root());
  });

  it("a row table driven by the helpers matches SparseMerkleMap, and its proofs verify", () => {
    const table = new RowTable();
    const map = new SparseMerkleMap();
    const keys = ["alice@a:1", "bob@b:2", "carol@c:3", "alice@a:2"].map(mapKey);
    for (const [i, k] of keys.entries()) {
      const v = leafHash(Uint8Array.of(i));
      table.write(mapUpdatePath(k, v, table.get));
      map.set(k, v);
    }
    const root = table.rows.get("0:") as Uint8Array;
    expect(root).toEqual(map.root());
    for (const [i, k] of keys.entries()) {
      const proof = mapProofFromSiblings(k, table.rows);
      expect(proof).toEqual(map.prove(k));
      expect(verifyMapProof(root, k, leafHash(Uint8Array.of(i)), proof)).toBe(true);
    }
    // Only non-default nodes are stored: at most 257 rows per key.
    expect(table.rows.size).toBeLessThanOrEqual(257 * keys.length);
  });

  it("missing rows read as defaults", () => {
    const proof = mapProofFromSiblings(key, new Map());
    expect(proof.siblings).toHaveLength(0);
    expect(mapUpdatePath(key, value, () => undefined)[1]?.hash).not.toEqual(mapDefaultHash(255));
  });

  it("rejects wrong inputs", () => {
    expect(() => mapSiblingNodes(new Uint8Array(31))).toThrow(/key/);
    expect(() => mapNodePrefix(key, 257)).toThrow(RangeError);
    expect(() => mapNodeKey(-1, key)).toThrow(RangeError);
    expect(() => mapNodeKey(1, "x" as unknown as Uint8Array)).toThrow(/prefix/);
    expect(() => mapUpdatePath(key, new Uint8Array(1), new Map())).toThrow(/value/);
    expect(() => mapUpdatePath(key, value, {} as unknown as Map<string, Uint8Array>)).toThrow(
      TypeError,
    );
    expect(() => mapProofFromSiblings(key, () => new Uint8Array(5))).toThrow(RangeError);
  });
});
