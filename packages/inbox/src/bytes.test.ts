import { encodeBase64 } from "@svc/canonical";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { equalBytes, toBase64 } from "./bytes.js";

describe("toBase64", () => {
  it("writes exactly what @svc/canonical's encodeBase64 writes, for views into larger buffers too", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(20), (bytes, cut) => {
        const view = bytes.subarray(Math.min(cut, bytes.length));
        expect(toBase64(view)).toBe(encodeBase64(view));
      }),
    );
  });
});

describe("equalBytes", () => {
  it("compares length and content", () => {
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 2))).toBe(true);
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 3))).toBe(false);
    expect(equalBytes(Uint8Array.of(1), Uint8Array.of(1, 2))).toBe(false);
  });
});
