import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isCanonicalEncoding, Point, stringToPoint } from "./suite.js";

/** The 32-byte little-endian encoding of y, with the sign bit given. */
function encoding(y: bigint, signed: boolean): Uint8Array {
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = Number((y >> BigInt(8 * i)) & 0xffn);
  if (signed) bytes[31] = (bytes[31] ?? 0) | 0x80;
  return bytes;
}

describe("isCanonicalEncoding", () => {
  const p = Point.Fp.ORDER;

  it("refuses y >= p and the sign bit on x = 0, which RFC 8032 decoding refuses", () => {
    for (const y of [p, p + 1n, (1n << 255n) - 1n]) {
      for (const signed of [false, true])
        expect(isCanonicalEncoding(encoding(y, signed))).toBe(false);
    }
    expect(isCanonicalEncoding(encoding(1n, true))).toBe(false);
    expect(isCanonicalEncoding(encoding(p - 1n, true))).toBe(false);
    expect(isCanonicalEncoding(encoding(1n, false))).toBe(true);
    expect(isCanonicalEncoding(encoding(p - 1n, false))).toBe(true);
    expect(stringToPoint(encoding(p - 1n, false))).toBeDefined();
    expect(stringToPoint(encoding(p - 1n, true))).toBeUndefined();
  });

  it("never refuses a string that decodes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        if (stringToPoint(bytes) !== undefined) expect(isCanonicalEncoding(bytes)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
