import { describe, expect, it } from "vitest";
import { RecentMap } from "./recent-map.js";

describe("RecentMap", () => {
  it("forgets the entry used longest ago once past its limit", () => {
    const map = new RecentMap<string, number>(2);
    map.set("a", 1);
    map.set("b", 2);
    expect(map.get("a")).toBe(1);
    map.set("c", 3);
    expect(map.get("b")).toBeUndefined();
    expect(map.get("a")).toBe(1);
    expect(map.get("c")).toBe(3);
    map.delete("a");
    expect(map.get("a")).toBeUndefined();
  });
});
