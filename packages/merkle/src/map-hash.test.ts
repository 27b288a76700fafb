import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import vectors from "./fixtures/index-map.json" with { type: "json" };
import { EMPTY_MAP_NODE, emptyMapRoot, mapKey, mapLeafHash, mapNodeHash } from "./map-hash.js";
import { hex, unhex } from "./test-support/reference.js";
import { leafHash, nodeHash } from "./tree-hash.js";

describe("address index map hashing", () => {
  it("keys are SHA-256 of the UTF-8 address", () => {
    for (const e of vectors.entries) expect(hex(mapKey(e.address))).toBe(e.key);
    expect(mapKey("é")).toEqual(sha256(Uint8Array.of(0xc3, 0xa9)));
  });

  it("uses the 0x02 / 0x03 prefixes, distinct from the log's", () => {
    const k = unhex(vectors.entries[0]?.key ?? "");
    const v = unhex(vectors.entries[0]?.value ?? "");
    expect(mapLeafHash(k, v)).toEqual(sha256(Uint8Array.of(2, ...k, ...v)));
    expect(mapNodeHash(k, v)).toEqual(sha256(Uint8Array.of(3, ...k, ...v)));
    expect(mapNodeHash(k, v)).not.toEqual(nodeHash(k, v));
    expect(hex(v)).toBe(hex(leafHash(new TextEncoder().encode(vectors.entries[0]?.leafUtf8))));
  });

  it("an empty subtree is 32 zero bytes at every depth; a one-key map's root is its leaf hash", () => {
    expect(EMPTY_MAP_NODE).toEqual(new Uint8Array(32));
    expect(hex(emptyMapRoot())).toBe(vectors.emptyRoot);
    const [alice] = vectors.entries;
    expect(hex(mapLeafHash(unhex(alice?.key ?? ""), unhex(alice?.value ?? "")))).toBe(
      vectors.singleEntryRoot,
    );
  });

  it("hands out a copy of the empty root", () => {
    emptyMapRoot().fill(1);
    expect(EMPTY_MAP_NODE).toEqual(new Uint8Array(32));
  });

  it("rejects wrong inputs, naming the argument", () => {
    const h = new Uint8Array(32);
    expect(() => mapKey(3 as unknown as string)).toThrow(/address/);
    expect(() => mapLeafHash(new Uint8Array(31), h)).toThrow(/key/);
    expect(() => mapLeafHash(h, new Uint8Array(33))).toThrow(/value/);
    expect(() => mapNodeHash(h, "x" as unknown as Uint8Array)).toThrow(/right/);
  });
});
