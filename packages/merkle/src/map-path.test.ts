import { describe, expect, it } from "vitest";
import { MAP_DEPTH, mapNodeHash } from "./map-hash.js";
import {
  commonPrefixBits,
  mapNodeKey,
  mapNodePrefix,
  mapRootFrom,
  mapRowCoords,
  mapSiblingNode,
} from "./map-path.js";
import { hex } from "./test-support/reference.js";

const key = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 0xa5) & 0xff);

describe("map node coordinates", () => {
  it("prefixes keep `depth` bits and zero the rest", () => {
    expect(mapNodePrefix(key, 0)).toEqual(new Uint8Array(0));
    expect(hex(mapNodePrefix(key, 3))).toBe("a0"); // 0xa5 = 1010 0101
    expect(hex(mapNodePrefix(key, 8))).toBe("a5");
    expect(hex(mapNodePrefix(key, 12))).toBe("a5c0"); // 0xca = 1100 1010
    expect(mapNodePrefix(key, MAP_DEPTH)).toEqual(key);
  });

  it("a sibling is the path prefix with its last bit flipped", () => {
    expect(hex(mapSiblingNode(key, 1).prefix)).toBe("00"); // first bit 1 -> 0
    expect(hex(mapSiblingNode(key, 3).prefix)).toBe("80"); // 101 -> 100
    const last = mapSiblingNode(key, 256).prefix;
    expect(last.slice(0, 31)).toEqual(key.slice(0, 31));
    expect(last[31]).toBe((key[31] as number) ^ 1);
  });

  it("lists path nodes and siblings of a depth range", () => {
    expect(mapRowCoords(key)).toHaveLength(257 + 256);
    const some = mapRowCoords(key, 0, 2);
    expect(some.map((c) => c.depth)).toEqual([0, 1, 1, 2, 2]);
    expect(some[3]).toEqual({ depth: 2, prefix: mapNodePrefix(key, 2) });
    expect(some[4]).toEqual(mapSiblingNode(key, 2));
  });

  it("node keys encode depth and prefix", () => {
    expect(mapNodeKey(12, Uint8Array.of(0xa5, 0xc0))).toBe("12:a5c0");
    expect(mapNodeKey(0, new Uint8Array(0))).toBe("0:");
  });

  it("counts shared leading bits", () => {
    const other = key.slice();
    other[1] = (other[1] as number) ^ 0x10;
    expect(commonPrefixBits(key, other)).toBe(11);
    expect(commonPrefixBits(key, key)).toBe(256);
  });

  it("hashes up to the root, the node on the left when its key bit is 0", () => {
    const node = new Uint8Array(32).fill(1);
    const sibling = (depth: number) => new Uint8Array(32).fill(depth);
    // key bits 0 and 1 are 1 and 0 (0xa5): the depth-2 node is a left child, its parent a right one.
    const expected = mapNodeHash(sibling(1), mapNodeHash(node, sibling(2)));
    expect(mapRootFrom(key, 2, node, sibling)).toEqual(expected);
    expect(mapRootFrom(key, 0, node, sibling)).toBe(node);
  });

  it("rejects wrong inputs", () => {
    expect(() => mapSiblingNode(new Uint8Array(31), 1)).toThrow(/key/);
    expect(() => mapSiblingNode(key, 0)).toThrow(RangeError);
    expect(() => mapNodePrefix(key, 257)).toThrow(RangeError);
    expect(() => mapRowCoords(key, 0, 300)).toThrow(RangeError);
    expect(() => mapNodeKey(-1, key)).toThrow(RangeError);
    expect(() => mapNodeKey(1, "x" as unknown as Uint8Array)).toThrow(/prefix/);
  });
});
