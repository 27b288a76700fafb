import { createECDH, randomBytes } from "node:crypto";
import { decrypt } from "http_ece";
import { describe, expect, it } from "vitest";
import { encryptWakeUp, MAX_PLAINTEXT_LENGTH, RECORD_SIZE } from "./encrypt.js";
import { PushError } from "./errors.js";

const b64 = (text: string) => new Uint8Array(Buffer.from(text, "base64url"));
const utf8 = (text: string) => new TextEncoder().encode(text);

/** A user agent's subscription as a browser makes it, and what http_ece needs to decrypt. */
function userAgent() {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    target: { p256dh: new Uint8Array(ecdh.getPublicKey()), auth: new Uint8Array(auth) },
    open: (body: Uint8Array) =>
      new Uint8Array(
        decrypt(Buffer.from(body), {
          version: "aes128gcm",
          privateKey: ecdh,
          authSecret: auth.toString("base64url"),
        }),
      ),
  };
}

describe("encryptWakeUp", () => {
  it("reproduces the worked example of RFC 8291 section 5 byte for byte", () => {
    // RFC 8291, "Message Encryption for Web Push", section 5 (and Appendix A): the user agent's
    // public key and authentication secret, the application server's private key and the salt
    // given there, and the message body it shows.
    const body = encryptWakeUp(
      utf8("When I grow up, I want to be a watermelon"),
      {
        p256dh: b64(
          "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
        ),
        auth: b64("BTBZMqHH6r4Tts7J_aSIgg"),
      },
      {
        salt: b64("DGv6ra1nlYgDCS1FRnbzlw"),
        ephemeralPrivateKey: b64("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"),
      },
    );
    expect(Buffer.from(body).toString("base64url")).toBe(
      "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27ml" +
        "mlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPT" +
        "pK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN",
    );
  });

  it("is decrypted by the independent http_ece package", () => {
    const ua = userAgent();
    const plaintext = utf8('{"v":1,"pending":3}');
    const body = encryptWakeUp(plaintext, ua.target);
    expect(ua.open(body)).toEqual(plaintext);
    // One record of size 4096 after the 16-byte salt, keyed by a 65-byte ephemeral point.
    expect(Buffer.from(body.subarray(16, 21)).toString("hex")).toBe("0000100041");
    expect(body.length).toBe(86 + plaintext.length + 1 + 16);
  });

  it("uses a fresh ephemeral key and salt for every message", () => {
    const ua = userAgent();
    const plaintext = utf8('{"v":1,"pending":1}');
    const a = encryptWakeUp(plaintext, ua.target);
    const b = encryptWakeUp(plaintext, ua.target);
    expect(Buffer.from(a.subarray(0, 16))).not.toEqual(Buffer.from(b.subarray(0, 16)));
    expect(Buffer.from(a.subarray(21, 86))).not.toEqual(Buffer.from(b.subarray(21, 86)));
    expect(ua.open(a)).toEqual(ua.open(b));
  });

  it("takes a plaintext that fills a 4096-byte body, and refuses one byte more", () => {
    const ua = userAgent();
    const largest = new Uint8Array(MAX_PLAINTEXT_LENGTH).fill(0x61);
    const body = encryptWakeUp(largest, ua.target);
    expect(body.length).toBe(RECORD_SIZE);
    expect(ua.open(body)).toEqual(largest);
    expect(() => encryptWakeUp(new Uint8Array(MAX_PLAINTEXT_LENGTH + 1), ua.target)).toThrow(
      expect.objectContaining({ name: "PushError", code: "PAYLOAD_TOO_LARGE" }),
    );
  });

  it("refuses keys that are not a subscription's with INVALID_SUBSCRIPTION", () => {
    const { target } = userAgent();
    const offCurve = Uint8Array.from(target.p256dh);
    offCurve[64] = (offCurve[64] ?? 0) ^ 1;
    for (const bad of [
      { ...target, p256dh: offCurve },
      { ...target, p256dh: target.p256dh.subarray(0, 33) },
      { ...target, auth: target.auth.subarray(0, 15) },
    ]) {
      const error = (() => {
        try {
          encryptWakeUp(utf8("x"), bad);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(PushError);
      expect(error).toMatchObject({ code: "INVALID_SUBSCRIPTION" });
    }
  });
});
