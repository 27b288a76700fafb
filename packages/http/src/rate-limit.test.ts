import { SvcError } from "@svc/protocol";
import { describe, expect, it } from "vitest";
import { createRateLimit, TokenBuckets } from "./rate-limit.js";

describe("TokenBuckets", () => {
  it("grants a full minute's budget at once, then one token per refill interval", () => {
    const buckets = new TokenBuckets(3);
    expect([1, 2, 3].map(() => buckets.take("a", 0))).toEqual([0, 0, 0]);
    expect(buckets.take("a", 0)).toBe(20);
    expect(buckets.take("a", 19_000)).toBe(1);
    expect(buckets.take("a", 20_000)).toBe(0);
    expect(buckets.take("b", 20_000)).toBe(0);
  });

  it("rounds Retry-After up to whole seconds, never below 1", () => {
    const buckets = new TokenBuckets(120);
    for (let i = 0; i < 120; i++) buckets.take("a", 0);
    expect(buckets.take("a", 0)).toBe(1);
    expect(buckets.take("a", 499)).toBe(1);
    expect(buckets.take("a", 500)).toBe(0);
    const slow = new TokenBuckets(1);
    slow.take("a", 0);
    expect(slow.take("a", 1)).toBe(60);
  });

  it("forgets buckets idle for a minute, which are full again", () => {
    const buckets = new TokenBuckets(2);
    for (let i = 0; i < 1000; i++) buckets.take(`ip-${i}`, i);
    expect(buckets.size).toBe(1000);
    buckets.take("late", 60_500);
    expect(buckets.size).toBe(500);
    buckets.take("later", 200_000);
    expect(buckets.size).toBe(1);
  });

  it("never tracks more than maxKeys buckets", () => {
    const buckets = new TokenBuckets(5, 100);
    for (let i = 0; i < 10_000; i++) buckets.take(`k${i}`, 0);
    expect(buckets.size).toBe(100);
  });

  it("refuses nonsense limits", () => {
    expect(() => new TokenBuckets(0)).toThrow(RangeError);
    expect(() => new TokenBuckets(1.5)).toThrow(RangeError);
    expect(() => new TokenBuckets(1, 0)).toThrow(RangeError);
  });
});

describe("createRateLimit", () => {
  it("throws 429 with Retry-After and reports the rejection", () => {
    let now = 1_000_000;
    const rejections: unknown[] = [];
    const limit = createRateLimit({
      route: "/r",
      limit: "r_per_ip",
      perMinute: 2,
      now: () => now,
      onReject: (rejection) => rejections.push(rejection),
    });
    limit.consume("x");
    limit.consume("x");
    let thrown: unknown;
    try {
      limit.consume("x");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SvcError);
    expect(thrown).toMatchObject({ status: 429, code: "SVC_RATE_LIMITED", retryAfterSeconds: 30 });
    expect(rejections).toEqual([{ route: "/r", limit: "r_per_ip", at: now }]);
    now += 30_000;
    expect(() => limit.consume("x")).not.toThrow();
  });
});
