import { describe, expect, it } from "vitest";
import { LruMap } from "./lru-map.js";

describe("LruMap", () => {
  it("drops the least recently used entry past its capacity; peek does not count as a use", () => {
    const map = new LruMap<string, number>(2);
    map.set("a", 1);
    map.set("b", 2);
    expect(map.get("a")).toBe(1);
    expect(map.peek("b")).toBe(2);
    map.set("c", 3);
    expect([map.peek("a"), map.peek("b"), map.peek("c")]).toEqual([1, undefined, 3]);
    map.set("a", 4);
    map.set("d", 5);
    expect([map.peek("a"), map.peek("c"), map.peek("d")]).toEqual([4, undefined, 5]);
    expect(map.size).toBe(2);
    expect(map.delete("a")).toBe(true);
    expect(map.size).toBe(1);
    map.clear();
    expect(map.size).toBe(0);
  });

  it("keeps nothing at capacity 0, and refuses a capacity that is not a whole number", () => {
    const map = new LruMap<string, number>(0);
    map.set("a", 1);
    expect(map.get("a")).toBeUndefined();
    expect(() => new LruMap(-1)).toThrow(RangeError);
    expect(() => new LruMap(1.5)).toThrow(RangeError);
  });
});
