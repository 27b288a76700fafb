import { CanonicalError, decodeBase64, encodeBase64 } from "@svc/canonical";
import { msgIdOf } from "@svc/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBase64Native, sha256Hex } from "./native-codecs.js";

/** What a decoder answers for a text: its bytes, or that it refused it with INVALID_BASE64. */
function outcome(decode: (text: string) => Uint8Array, text: string): Uint8Array | "refused" {
  try {
    return decode(text);
  } catch (error) {
    expect(error).toBeInstanceOf(CanonicalError);
    expect((error as CanonicalError).code).toBe("INVALID_BASE64");
    return "refused";
  }
}

// Texts near base64: its alphabet, padding, and what a lenient decoder skips or misreads.
const nearBase64 = fc
  .array(fc.constantFrom(..."AQgw+/=Zz09-_ \n.\u00e9".split("")), { maxLength: 24 })
  .map((chars) => chars.join(""));

describe("decodeBase64Native", () => {
  it("answers the bytes of every canonical encoding", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expect(decodeBase64Native(encodeBase64(bytes))).toEqual(bytes);
      }),
    );
  });

  it("accepts and refuses exactly what the portable decoder does", () => {
    fc.assert(
      fc.property(fc.oneof(nearBase64, fc.string({ maxLength: 24 })), (text) => {
        expect(outcome(decodeBase64Native, text)).toEqual(outcome(decodeBase64, text));
      }),
      { numRuns: 5000 },
    );
  });

  it("refuses non-zero trailing bits, missing padding, whitespace and the URL alphabet", () => {
    for (const text of ["QR==", "QUI=x", "QUI", "QU I=", "QUI=\n", "-_8=", "QUJD====", "="]) {
      expect(outcome(decodeBase64Native, text), text).toBe("refused");
      expect(outcome(decodeBase64, text), text).toBe("refused");
    }
  });

  it("checks the expected length", () => {
    expect(decodeBase64Native("AAAA", 3)).toEqual(new Uint8Array(3));
    expect(() => decodeBase64Native("AAAA", 4)).toThrow("expected 4 bytes, got 3");
  });
});

describe("sha256Hex", () => {
  it("is msgIdOf", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(sha256Hex(bytes)).toBe(msgIdOf(bytes));
      }),
    );
  });
});
