import { createECDH } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PushError } from "./errors.js";
import { decodeSubscriptionKeys } from "./subscription-keys.js";

// A fixed key whose standard base64 holds "+" and "/", so the base64url check is always exercised.
const ecdh = createECDH("prime256v1");
ecdh.setPrivateKey(Buffer.alloc(32, 1));
const point = ecdh.getPublicKey();
const auth = Buffer.alloc(16, 7);
const p256dh = point.toString("base64url");
const authText = auth.toString("base64url");

const refusal = (p: string, a: string) => {
  try {
    decodeSubscriptionKeys(p, a);
  } catch (error) {
    return error;
  }
  return undefined;
};

describe("decodeSubscriptionKeys", () => {
  it("decodes base64url keys with or without padding", () => {
    const expected = { p256dh: new Uint8Array(point), auth: new Uint8Array(auth) };
    expect(decodeSubscriptionKeys(p256dh, authText)).toEqual(expected);
    expect(decodeSubscriptionKeys(`${p256dh}=`, `${authText}==`)).toEqual(expected);
  });

  it.each([
    ["p256dh in standard base64", point.toString("base64"), authText, "p256dh must be base64url"],
    ["wrong padding", `${p256dh}==`, authText, "p256dh must be base64url"],
    [
      "a compressed point",
      ecdh.getPublicKey(null, "compressed").toString("base64url"),
      authText,
      "p256dh must be an uncompressed P-256 point of 65 bytes",
    ],
    [
      "a point off the curve",
      Buffer.concat([point.subarray(0, 64), Buffer.of((point[64] ?? 0) ^ 1)]).toString("base64url"),
      authText,
      "p256dh must be an uncompressed P-256 point of 65 bytes",
    ],
    ["an empty p256dh", "", authText, "p256dh must be an uncompressed P-256 point of 65 bytes"],
    [
      "auth of 15 bytes",
      p256dh,
      auth.subarray(0, 15).toString("base64url"),
      "auth must be 16 bytes",
    ],
    ["auth of 17 bytes", p256dh, Buffer.alloc(17).toString("base64url"), "auth must be 16 bytes"],
    ["auth with a space", p256dh, ` ${authText}`, "auth must be base64url"],
  ])("refuses %s with INVALID_SUBSCRIPTION", (_name, p, a, message) => {
    expect(point.toString("base64")).toMatch(/[+/]/);
    const error = refusal(p, a);
    expect(error).toBeInstanceOf(PushError);
    expect(error).toMatchObject({ code: "INVALID_SUBSCRIPTION", message });
  });

  it("throws nothing but PushError INVALID_SUBSCRIPTION on any input", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.base64String(),
          fc.uint8Array().map((b) => Buffer.from(b).toString("base64url")),
        ),
        fc.oneof(fc.string(), fc.base64String()),
        (p, a) => {
          const error = refusal(p, a);
          if (error !== undefined) {
            expect(error).toBeInstanceOf(PushError);
            expect(error).toMatchObject({ code: "INVALID_SUBSCRIPTION" });
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
