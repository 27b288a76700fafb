import { describe, expect, it } from "vitest";
import { RateMeter } from "./progress.js";

describe("RateMeter", () => {
  it("smooths the rate over time and derives the ETA from it", () => {
    let now = 0;
    const meter = new RateMeter(1000, 100, () => now);
    expect(meter.update(100)).toEqual({ bytes: 100, total: 1000, rate: 0, etaSeconds: undefined });
    now = 1;
    // The first second's rate is that second's, not a fraction of it.
    const first = meter.update(200);
    expect(first.rate).toBeCloseTo(100, 9);
    expect(first.etaSeconds).toBeCloseTo(8, 9);
    // A burst at the same instant changes nothing until time passes.
    expect(meter.update(300).rate).toBeCloseTo(100, 9);
    now = 2;
    const { rate } = meter.update(400);
    expect(rate).toBeGreaterThan(100);
    expect(rate).toBeLessThan(200);
  });
});
