import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBase64, decodeBase64Url, encodeBase64, encodeBase64Url } from "./base64.js";
import { CanonicalError } from "./errors.js";

const utf8 = new TextEncoder();

// RFC 4648 section 10 test vectors.
const RFC4648 = [
  ["", ""],
  ["f", "Zg=="],
  ["fo", "Zm8="],
  ["foo", "Zm9v"],
  ["foob", "Zm9vYg=="],
  ["fooba", "Zm9vYmE="],
  ["foobar", "Zm9vYmFy"],
] as const;

function expectInvalid(run: () => unknown): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CanonicalError);
    expect((error as CanonicalError).code).toBe("INVALID_BASE64");
    return;
  }
  throw new Error("expected INVALID_BASE64");
}

describe("base64 (RFC 4648 section 4)", () => {
  it.each(RFC4648)("%j <-> %j", (text, encoded) => {
    expect(encodeBase64(utf8.encode(text))).toBe(encoded);
    expect(decodeBase64(encoded)).toEqual(utf8.encode(text));
  });

  it("round-trips and matches Buffer", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const encoded = encodeBase64(bytes);
        expect(encoded).toBe(Buffer.from(bytes).toString("base64"));
        expect(decodeBase64(encoded, bytes.length)).toEqual(bytes);
      }),
    );
  });

  it("accepts only canonical encodings", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."AQgw+/=-_ \n"), maxLength: 12 }), (s) => {
        let decoded: Uint8Array;
        try {
          decoded = decodeBase64(s);
        } catch (error) {
          expect(error).toBeInstanceOf(CanonicalError);
          return;
        }
        expect(encodeBase64(decoded)).toBe(s);
      }),
    );
  });

  it.each([
    ["missing padding", "Zg"],
    ["missing one pad", "Zg="],
    ["extra padding", "Zm9v===="],
    ["padding in the middle", "Zg==Zm9v"],
    ["padding only", "===="],
    ["three pads", "Z==="],
    ["non-zero trailing bits (1 byte)", "Zh=="],
    ["non-zero trailing bits (2 bytes)", "Zm9="],
    ["whitespace", "Zm9v\n"],
    ["inner space", "Zm 9v"],
    ["url alphabet", "-_-_"],
    ["non-ASCII", "Zm9\u00e9"],
    ["wide char", "Zm9\u0156"],
  ])("rejects %s", (_, text) => {
    expectInvalid(() => decodeBase64(text));
  });

  it("checks the decoded length", () => {
    expect(decodeBase64("AAAA", 3)).toEqual(new Uint8Array(3));
    expectInvalid(() => decodeBase64("AAAA", 4));
    expectInvalid(() => decodeBase64("", 32));
  });

  it("rejects wrong argument types", () => {
    expect(() => encodeBase64("abc" as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => decodeBase64(42 as unknown as string)).toThrow(TypeError);
    expect(() => decodeBase64("AAAA", -1)).toThrow(RangeError);
    expect(() => decodeBase64("AAAA", 1.5)).toThrow(RangeError);
  });
});

describe("base64url (RFC 4648 section 5, unpadded)", () => {
  it.each(RFC4648)("%j <-> %j", (text, encoded) => {
    const unpadded = encoded.replace(/=+$/, "");
    expect(encodeBase64Url(utf8.encode(text))).toBe(unpadded);
    expect(decodeBase64Url(unpadded)).toEqual(utf8.encode(text));
  });

  it("round-trips and matches Buffer", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const encoded = encodeBase64Url(bytes);
        expect(encoded).toBe(Buffer.from(bytes).toString("base64url"));
        expect(decodeBase64Url(encoded, bytes.length)).toEqual(bytes);
      }),
    );
  });

  it("accepts only canonical encodings", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."AQgw+/=-_ "), maxLength: 12 }), (s) => {
        let decoded: Uint8Array;
        try {
          decoded = decodeBase64Url(s);
        } catch (error) {
          expect(error).toBeInstanceOf(CanonicalError);
          return;
        }
        expect(encodeBase64Url(decoded)).toBe(s);
      }),
    );
  });

  it.each([
    ["padding", "Zg=="],
    ["impossible length", "Zm9vY"],
    ["standard alphabet", "+/+/"],
    ["non-zero trailing bits", "Zh"],
    ["whitespace", " Zm9v"],
  ])("rejects %s", (_, text) => {
    expectInvalid(() => decodeBase64Url(text));
  });

  it("checks the decoded length and argument types", () => {
    expectInvalid(() => decodeBase64Url("3Kg-cXsfZOsUEFenQVozCg", 15));
    expect(decodeBase64Url("3Kg-cXsfZOsUEFenQVozCg", 16)).toHaveLength(16);
    expect(() => encodeBase64Url([1] as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => decodeBase64Url(null as unknown as string)).toThrow(TypeError);
  });
});
