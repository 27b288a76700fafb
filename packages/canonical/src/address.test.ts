import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isValidAddress, normalizeAddress } from "./address.js";
import { CanonicalError } from "./errors.js";

const PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9@:_.-]{0,255}$/;

describe("normalizeAddress", () => {
  it.each(["alice@example.com:1", "device:3fa9-01", "a", "Zed:1", "x".repeat(256)])(
    "accepts %s unchanged",
    (address) => {
      expect(normalizeAddress(address)).toBe(address);
      expect(isValidAddress(address)).toBe(true);
    },
  );

  it("normalizes with NFKC first", () => {
    expect(normalizeAddress("\uff42\uff4f\uff42:\uff12")).toBe("bob:2");
    expect(normalizeAddress("alice\uff20example.com")).toBe("alice@example.com");
  });

  it.each([
    ["empty", ""],
    ["comma", "bob:2,carol:9"],
    ["leading punctuation", "-bob"],
    ["leading @", "@bob"],
    ["space", "bob 2"],
    ["non-ASCII after NFKC", "b\u00f6b"],
    ["too long", "x".repeat(257)],
    ["huge", "x".repeat(100_000)],
    ["slash", "a/b"],
  ])("rejects %s", (_, raw) => {
    expect(() => normalizeAddress(raw)).toThrow(CanonicalError);
    expect(isValidAddress(raw)).toBe(false);
    try {
      normalizeAddress(raw);
    } catch (error) {
      expect((error as CanonicalError).code).toBe("INVALID_ADDRESS");
    }
  });

  it("is idempotent, matches the pattern and agrees with isValidAddress", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 20 }),
          fc.string({ unit: "grapheme", maxLength: 20 }),
          fc.string({
            unit: fc.constantFrom(..."aZ09@:_.-,\uff41\uff11\u00e9\u2126"),
            maxLength: 20,
          }),
        ),
        (raw) => {
          expect(isValidAddress(raw)).toBe(PATTERN.test(raw.normalize("NFKC")));
          if (!isValidAddress(raw)) return;
          const normalized = normalizeAddress(raw);
          expect(normalized).toMatch(PATTERN);
          expect(normalizeAddress(normalized)).toBe(normalized);
        },
      ),
    );
  });

  it("throws TypeError for a non-string; isValidAddress says false", () => {
    expect(() => normalizeAddress(1 as unknown as string)).toThrow(TypeError);
    expect(isValidAddress(undefined)).toBe(false);
  });
});
