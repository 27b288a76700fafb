import fc from "fast-check";
import nacl from "tweetnacl";
import { describe, expect, it } from "vitest";
import {
  ed25519KeyPairFromSeed,
  ed25519Sign,
  portableEd25519,
  x25519PublicKeyFromSeed,
} from "./ed25519.js";
import { isSmallOrderPoint } from "./ed25519-strict.js";
import {
  IDENTITY,
  MINUS_ONE_SIGN_BIT,
  malleate,
  signatureForIdentityKey,
  signatureForSmallOrderKey,
  signatureWithIdentityR,
  smallOrderKeys,
} from "./testing.js";

const seed = fc.uint8Array({ minLength: 32, maxLength: 32 });
const message = fc.uint8Array({ maxLength: 100 });

/** The server's verifiers (libsodium, node:crypto) are checked against this one in @svc/http. */
const verify = (signature: Uint8Array, msg: Uint8Array, publicKey: Uint8Array) =>
  portableEd25519.verify(signature, msg, publicKey);

describe("portableEd25519: strict RFC 8032", () => {
  it("accept random valid signatures", () => {
    fc.assert(
      fc.property(seed, message, (s, msg) => {
        const signature = ed25519Sign(msg, s);
        expect(verify(signature, msg, ed25519KeyPairFromSeed(s).publicKey)).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it("reject random garbage", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 64, maxLength: 64 }),
        message,
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (signature, msg, publicKey) => {
          expect(verify(signature, msg, publicKey)).toBe(false);
        },
      ),
    );
  });

  it("reject every flipped bit of signature, message or key", () => {
    fc.assert(
      fc.property(seed, fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.nat(), (s, msg, bit) => {
        const signature = ed25519Sign(msg, s);
        const publicKey = ed25519KeyPairFromSeed(s).publicKey;
        const flip = (bytes: Uint8Array) => {
          const copy = bytes.slice();
          const i = bit % (copy.length * 8);
          copy[i >> 3] = (copy[i >> 3] as number) ^ (1 << (i & 7));
          return copy;
        };
        expect(verify(flip(signature), msg, publicKey)).toBe(false);
        expect(verify(signature, flip(msg), publicKey)).toBe(false);
        expect(verify(signature, msg, flip(publicKey))).toBe(false);
      }),
      { numRuns: 25 },
    );
  });

  it("reject S + L, which tweetnacl alone accepts", () => {
    fc.assert(
      fc.property(seed, message, (s, msg) => {
        const malleated = malleate(ed25519Sign(msg, s));
        const publicKey = ed25519KeyPairFromSeed(s).publicKey;
        expect(nacl.sign.detached.verify(msg, malleated, publicKey)).toBe(true);
        expect(verify(malleated, msg, publicKey)).toBe(false);
      }),
      { numRuns: 25 },
    );
  });

  it("reject non-canonical encodings of A that tweetnacl alone accepts", () => {
    const msg = new TextEncoder().encode("any message");
    const signature = signatureForIdentityKey(new Uint8Array(32).fill(1));
    expect(verify(signature, msg, IDENTITY.canonical)).toBe(true);
    for (const key of [IDENTITY.yPlusP, IDENTITY.signBit, IDENTITY.yPlusPSignBit]) {
      expect(nacl.sign.detached.verify(msg, signature, key)).toBe(true);
      expect(verify(signature, msg, key)).toBe(false);
    }
    expect(verify(signature, msg, MINUS_ONE_SIGN_BIT)).toBe(false);
  });

  it("reject non-canonical encodings of R", () => {
    const msg = new TextEncoder().encode("any message");
    const s = new Uint8Array(32).fill(2);
    const publicKey = ed25519KeyPairFromSeed(s).publicKey;
    expect(verify(signatureWithIdentityR(msg, s, IDENTITY.canonical), msg, publicKey)).toBe(true);
    for (const r of [
      IDENTITY.yPlusP,
      IDENTITY.signBit,
      IDENTITY.yPlusPSignBit,
      MINUS_ONE_SIGN_BIT,
    ]) {
      expect(verify(signatureWithIdentityR(msg, s, r), msg, publicKey)).toBe(false);
    }
  });

  it("accept keys of small order as RFC 8032 does", () => {
    const msg = new TextEncoder().encode("any message");
    let accepted = 0;
    for (const { key, canonical } of smallOrderKeys()) {
      expect(verify(signatureForSmallOrderKey(key, msg), msg, key)).toBe(canonical);
      if (canonical) accepted++;
    }
    expect(accepted).toBe(8);
  });

  it("reject wrong lengths without throwing", () => {
    const s = new Uint8Array(32).fill(3);
    const msg = new Uint8Array([1, 2, 3]);
    const signature = ed25519Sign(msg, s);
    const publicKey = ed25519KeyPairFromSeed(s).publicKey;
    expect(verify(signature.slice(0, 63), msg, publicKey)).toBe(false);
    expect(verify(Uint8Array.from([...signature, 0]), msg, publicKey)).toBe(false);
    expect(verify(signature, msg, publicKey.slice(0, 31))).toBe(false);
    expect(verify(signature, msg, Uint8Array.from([...publicKey, 0]))).toBe(false);
    expect(verify(new Uint8Array(0), msg, new Uint8Array(0))).toBe(false);
  });

  it("throw TypeError for non-byte arguments", () => {
    const bytes = new Uint8Array(32);
    expect(() => verify("sig" as unknown as Uint8Array, bytes, bytes)).toThrow(TypeError);
    expect(() => verify(bytes, [] as unknown as Uint8Array, bytes)).toThrow(TypeError);
    expect(() => verify(bytes, bytes, null as unknown as Uint8Array)).toThrow(TypeError);
  });
});

describe("isSmallOrderPoint", () => {
  it("is true for the 8 points of small order under both sign bits, at any offset", () => {
    for (const { key } of smallOrderKeys()) {
      expect(isSmallOrderPoint(key)).toBe(true);
      expect(isSmallOrderPoint(Uint8Array.from([9, ...key]), 1)).toBe(true);
    }
  });

  it("is false for honest public keys", () => {
    fc.assert(fc.property(seed, (s) => !isSmallOrderPoint(ed25519KeyPairFromSeed(s).publicKey)));
  });
});

describe("key helpers", () => {
  it("derive keys from a 32-byte seed (RFC 8032 section 7.1 test 1, RFC 7748 section 6.1)", () => {
    const hex = (h: string) => Uint8Array.from(h.match(/../g) ?? [], (b) => Number.parseInt(b, 16));
    const ed = hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
    expect(ed25519KeyPairFromSeed(ed).publicKey).toEqual(
      hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"),
    );
    expect(ed25519Sign(new Uint8Array(0), ed)).toEqual(
      hex(
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
      ),
    );
    const x = hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
    expect(x25519PublicKeyFromSeed(x)).toEqual(
      hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"),
    );
  });

  it("reject bad seeds", () => {
    expect(() => ed25519KeyPairFromSeed(new Uint8Array(31))).toThrow(RangeError);
    expect(() => x25519PublicKeyFromSeed(new Uint8Array(33))).toThrow(RangeError);
    expect(() => ed25519Sign(new Uint8Array(1), "seed" as unknown as Uint8Array)).toThrow(
      TypeError,
    );
    expect(() => ed25519Sign("m" as unknown as Uint8Array, new Uint8Array(32))).toThrow(TypeError);
  });
});
