import { encodeBase64 } from "@svc/canonical";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toBase64 } from "./bytes.js";

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
