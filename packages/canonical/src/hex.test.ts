import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CanonicalError } from "./errors.js";
import { bytesToHex, hexToBytes } from "./hex.js";

describe("hex", () => {
  it("round-trips lower-case hex", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const hex = bytesToHex(bytes);
        expect(hex).toBe(Buffer.from(bytes).toString("hex"));
        expect(hexToBytes(hex, bytes.length)).toEqual(bytes);
      }),
    );
  });

  it.each([
    ["odd length", "abc"],
    ["upper case", "AB"],
    ["non-hex", "zz"],
    ["space", " a"],
  ])("rejects %s", (_, text) => {
    expect(() => hexToBytes(text)).toThrow(CanonicalError);
  });

  it("checks the decoded length and argument types", () => {
    expect(() => hexToBytes("00", 2)).toThrow(CanonicalError);
    expect(() => bytesToHex("00" as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => hexToBytes(0 as unknown as string)).toThrow(TypeError);
    expect(() => hexToBytes("00", -1)).toThrow(RangeError);
  });
});
