import { hkdf } from "@noble/hashes/hkdf.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { concatBytes } from "@svc/canonical";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { kdfCk, kdfRk, kdfX3dh, ROOT_INFO, X3DH_INFO } from "./kdf.js";

const key = fc.uint8Array({ minLength: 32, maxLength: 32 });
const utf8 = new TextEncoder();

describe("kdfCk", () => {
  it("is HMAC-SHA256(ck, 0x01) for the message key and HMAC-SHA256(ck, 0x02) for the chain key", () => {
    fc.assert(
      fc.property(key, (ck) => {
        const { messageKey, chainKey } = kdfCk(ck);
        expect(messageKey).toEqual(hmac(sha256, ck, Uint8Array.of(0x01)));
        expect(chainKey).toEqual(hmac(sha256, ck, Uint8Array.of(0x02)));
      }),
    );
  });
});

describe("kdfRk", () => {
  it("is HKDF-SHA256(salt = rk, IKM = dh_out, info) split 32 + 32", () => {
    fc.assert(
      fc.property(key, key, (rk, dhOut) => {
        const out = hkdf(sha256, dhOut, rk, utf8.encode("svc-ratchet-v1 root"), 64);
        expect(kdfRk(rk, dhOut)).toEqual({
          rootKey: out.subarray(0, 32),
          chainKey: out.subarray(32),
        });
      }),
    );
  });
});

describe("kdfX3dh", () => {
  it("is HKDF-SHA256(salt = 32 zero bytes, IKM = 32 0xFF || DH1 || ... , info), 32 bytes", () => {
    fc.assert(
      fc.property(fc.array(key, { minLength: 3, maxLength: 4 }), (dhs) => {
        const ikm = concatBytes(new Uint8Array(32).fill(0xff), ...dhs);
        const expected = hkdf(
          sha256,
          ikm,
          new Uint8Array(32),
          utf8.encode("svc-ratchet-v1 X3DH"),
          32,
        );
        expect(kdfX3dh(dhs)).toEqual(expected);
      }),
    );
  });

  it("uses the documented info strings", () => {
    expect(new TextDecoder().decode(X3DH_INFO)).toBe("svc-ratchet-v1 X3DH");
    expect(new TextDecoder().decode(ROOT_INFO)).toBe("svc-ratchet-v1 root");
  });
});
