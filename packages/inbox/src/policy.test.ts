import { encodeBase64Url } from "@svc/canonical";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clampExpiry, MAX_RETRY_AFTER_SECONDS, retryAfterSeconds, senderName } from "./policy.js";

const bounds = { minTtlMs: 60_000, maxTtlMs: 30 * 86_400_000 };

describe("clampExpiry", () => {
  it("raises a too-early expiry to now + minTtl and lowers a too-late one to now + maxTtl", () => {
    expect(clampExpiry(0, 1_000, bounds)).toBe(61_000);
    expect(clampExpiry(Number.MAX_SAFE_INTEGER, 1_000, bounds)).toBe(1_000 + bounds.maxTtlMs);
    expect(clampExpiry(500_000, 1_000, bounds)).toBe(500_000);
  });

  it("always lands inside [now + minTtl, now + maxTtl]", () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat({ max: 2 ** 40 }), (requested, now) => {
        const expiry = clampExpiry(requested, now, bounds);
        return expiry >= now + bounds.minTtlMs && expiry <= now + bounds.maxTtlMs;
      }),
    );
  });
});

describe("retryAfterSeconds", () => {
  it("rounds up to whole seconds within [1, 3600]", () => {
    expect(retryAfterSeconds(1_001, 1_000)).toBe(1);
    expect(retryAfterSeconds(2_500, 1_000)).toBe(2);
    expect(retryAfterSeconds(1_000, 1_000)).toBe(1);
    expect(retryAfterSeconds(10 ** 12, 0)).toBe(MAX_RETRY_AFTER_SECONDS);
  });
});

describe("senderName", () => {
  it("prefers the signed from member, else key: + unpadded base64url of the key", () => {
    const key = Uint8Array.from({ length: 32 }, (_, i) => 250 - i);
    expect(senderName("bob:2", key)).toBe("bob:2");
    expect(senderName(undefined, key)).toBe(`key:${encodeBase64Url(key)}`);
    expect(senderName(undefined, key)).not.toContain("=");
  });
});
