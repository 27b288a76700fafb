import { describe, expect, it } from "vitest";
import { isFresh, SIGNED_AT_WINDOW_MS } from "./freshness.js";

describe("isFresh", () => {
  const now = 1_763_780_000_000;

  it("has inclusive ±300000 ms bounds", () => {
    expect(SIGNED_AT_WINDOW_MS).toBe(300_000);
    expect(isFresh(now, now)).toBe(true);
    expect(isFresh(now - 300_000, now)).toBe(true);
    expect(isFresh(now + 300_000, now)).toBe(true);
    expect(isFresh(now - 300_001, now)).toBe(false);
    expect(isFresh(now + 300_001, now)).toBe(false);
  });

  it("is false for non-finite signedAt and throws for a bad now", () => {
    expect(isFresh(Number.NaN, now)).toBe(false);
    expect(isFresh(Number.POSITIVE_INFINITY, now)).toBe(false);
    expect(isFresh("1" as unknown as number, now)).toBe(false);
    expect(() => isFresh(now, Number.NaN)).toThrow(TypeError);
  });
});
