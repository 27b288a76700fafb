import { describe, expect, it } from "vitest";
import { parseRetryAfter, retryDelayMs } from "./retry.js";

const policy = { attempts: 8, baseMs: 100, maxMs: 1000 };

describe("retryDelayMs", () => {
  it("draws from 0..min(maxMs, baseMs * 2^(attempt - 1)) (full jitter)", () => {
    expect(retryDelayMs(policy, 1, undefined, () => 0.999)).toBe(99);
    expect(retryDelayMs(policy, 3, undefined, () => 0.5)).toBe(200);
    expect(retryDelayMs(policy, 10, undefined, () => 0.999)).toBe(999);
    expect(retryDelayMs(policy, 10, undefined, () => 0)).toBe(0);
  });

  it("waits a Retry-After as given, and gives up on one over a minute", () => {
    expect(retryDelayMs(policy, 1, 3)).toBe(3000);
    expect(retryDelayMs(policy, 1, 61)).toBeUndefined();
  });
});

describe("parseRetryAfter", () => {
  it("reads whole seconds only", () => {
    expect(parseRetryAfter("5")).toBe(5);
    expect(parseRetryAfter(" 0 ")).toBe(0);
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT")).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});
