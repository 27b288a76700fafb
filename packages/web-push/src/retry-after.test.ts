import { describe, expect, it } from "vitest";
import { retryWaitMs } from "./retry-after.js";

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);

describe("retryWaitMs", () => {
  it("waits Retry-After seconds, capped at 60 s", () => {
    expect(retryWaitMs("1", 1, NOW)).toBe(1000);
    expect(retryWaitMs(" 7 ", 2, NOW)).toBe(7000);
    expect(retryWaitMs("0", 1, NOW)).toBe(0);
    expect(retryWaitMs("3600", 1, NOW)).toBe(60_000);
  });

  it("waits until a Retry-After HTTP date, capped at 60 s, never below 0", () => {
    expect(retryWaitMs("Sat, 28 Nov 2026 12:00:30 GMT", 1, NOW)).toBe(30_000);
    expect(retryWaitMs("Sat, 28 Nov 2026 13:00:00 GMT", 1, NOW)).toBe(60_000);
    expect(retryWaitMs("Sat, 28 Nov 2026 11:00:00 GMT", 1, NOW)).toBe(0);
  });

  it("waits 1 s then 2 s, each stretched by up to half, when there is no usable Retry-After", () => {
    const none = () => 0;
    expect(retryWaitMs(undefined, 1, NOW, none)).toBe(1000);
    expect(retryWaitMs(undefined, 2, NOW, none)).toBe(2000);
    expect(retryWaitMs("soon", 1, NOW, none)).toBe(1000);
    expect(retryWaitMs("-5", 2, NOW, none)).toBe(2000);
    expect(retryWaitMs(undefined, 1, NOW, () => 0.999)).toBe(1500);
    expect(retryWaitMs(undefined, 2, NOW, () => 0.5)).toBe(2500);
    // A Retry-After is what the push service asked for: no stretch.
    expect(retryWaitMs("3", 1, NOW, () => 0.9)).toBe(3000);
  });

  it("spreads the waits of requests that failed together", () => {
    const waits = new Set(Array.from({ length: 64 }, () => retryWaitMs(undefined, 1, NOW)));
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(1000);
    expect(Math.max(...waits)).toBeLessThanOrEqual(1500);
    expect(waits.size).toBeGreaterThan(32);
  });
});
