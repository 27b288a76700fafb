import {
  type Ed25519Verifier,
  ed25519KeyPairFromSeed,
  ed25519Sign,
  hexToBytes,
  portableEd25519,
} from "@svc/canonical";
import {
  IDENTITY,
  MINUS_ONE_SIGN_BIT,
  malleate,
  signatureForIdentityKey,
  signatureForSmallOrderKey,
  signatureWithIdentityR,
  smallOrderKeys,
} from "@svc/canonical/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { serverEd25519Verifier } from "./index.js";
import { nodeEd25519 } from "./node-crypto.js";
import { chooseEd25519Verifier } from "./server-verifier.js";
import { loadSodiumNative, type Sodium, sodiumEd25519 } from "./sodium.js";

/** sodium-native is optional: without its binary the libsodium checks skip and say why. */
const sodium = ((): Sodium | undefined => {
  try {
    return loadSodiumNative();
  } catch (error) {
    console.warn(`libsodium verifier tests skipped: sodium-native did not load (${error})`);
    return undefined;
  }
})();

const fallbackReasons: string[] = [];
const withoutSodium = chooseEd25519Verifier(
  () => {
    throw new Error("no prebuilt binary for this platform");
  },
  (reason) => fallbackReasons.push(reason),
);

const node = nodeEd25519();
/** Every server verifier; each must answer as portableEd25519 does. */
const verifiers: Record<string, Ed25519Verifier> = {
  "nodeEd25519 (node:crypto)": node,
  "serverEd25519Verifier without sodium-native": withoutSodium,
  "serverEd25519Verifier as installed": serverEd25519Verifier(),
  ...(sodium && { "sodiumEd25519 (libsodium)": sodiumEd25519(sodium, node) }),
};

const seed = fc.uint8Array({ minLength: 32, maxLength: 32 });
const message = fc.uint8Array({ maxLength: 100 });

/** Every verifier gives the same answer as portableEd25519; returns it. */
function verifyAll(signature: Uint8Array, msg: Uint8Array, publicKey: Uint8Array): boolean {
  const portable = portableEd25519.verify(signature, msg, publicKey);
  for (const [name, verifier] of Object.entries(verifiers)) {
    expect(verifier.verify(signature, msg, publicKey), name).toBe(portable);
  }
  return portable;
}

describe("serverEd25519Verifier", () => {
  it("falls back to node:crypto, saying why, when sodium-native does not load", () => {
    expect(fallbackReasons).toEqual([
      "sodium-native did not load: no prebuilt binary for this platform",
    ]);
  });

  it.runIf(sodium)("verifies with libsodium when sodium-native loads", () => {
    let calls = 0;
    const counting: Sodium = {
      crypto_sign_verify_detached(signature, msg, publicKey) {
        calls++;
        return (sodium as Sodium).crypto_sign_verify_detached(signature, msg, publicKey);
      },
    };
    const reasons: string[] = [];
    const verifier = chooseEd25519Verifier(
      () => counting,
      (reason) => reasons.push(reason),
    );
    const s = new Uint8Array(32).fill(4);
    const msg = new Uint8Array([1, 2, 3]);
    expect(verifier.verify(ed25519Sign(msg, s), msg, ed25519KeyPairFromSeed(s).publicKey)).toBe(
      true,
    );
    expect(calls).toBe(1);
    expect(reasons).toEqual([]);
  });

  it("verifies RFC 8032 section 7.1 test 1", () => {
    const publicKey = hexToBytes(
      "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    );
    const signature = hexToBytes(
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    );
    expect(verifyAll(signature, new Uint8Array(0), publicKey)).toBe(true);
  });
});

describe("server Ed25519 verifiers agree with portableEd25519", () => {
  it("accept random valid signatures", () => {
    fc.assert(
      fc.property(seed, message, (s, msg) => {
        const signature = ed25519Sign(msg, s);
        expect(verifyAll(signature, msg, ed25519KeyPairFromSeed(s).publicKey)).toBe(true);
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
          expect(verifyAll(signature, msg, publicKey)).toBe(false);
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
        expect(verifyAll(flip(signature), msg, publicKey)).toBe(false);
        expect(verifyAll(signature, flip(msg), publicKey)).toBe(false);
        expect(verifyAll(signature, msg, flip(publicKey))).toBe(false);
      }),
      { numRuns: 25 },
    );
  });

  it("reject S + L", () => {
    fc.assert(
      fc.property(seed, message, (s, msg) => {
        const malleated = malleate(ed25519Sign(msg, s));
        const publicKey = ed25519KeyPairFromSeed(s).publicKey;
        expect(verifyAll(malleated, msg, publicKey)).toBe(false);
      }),
      { numRuns: 25 },
    );
  });

  it("reject non-canonical encodings of A", () => {
    const msg = new TextEncoder().encode("any message");
    const signature = signatureForIdentityKey(new Uint8Array(32).fill(1));
    expect(verifyAll(signature, msg, IDENTITY.canonical)).toBe(true);
    for (const key of [IDENTITY.yPlusP, IDENTITY.signBit, IDENTITY.yPlusPSignBit]) {
      expect(verifyAll(signature, msg, key)).toBe(false);
    }
    expect(verifyAll(signature, msg, MINUS_ONE_SIGN_BIT)).toBe(false);
  });

  it("reject non-canonical encodings of R", () => {
    const msg = new TextEncoder().encode("any message");
    const s = new Uint8Array(32).fill(2);
    const publicKey = ed25519KeyPairFromSeed(s).publicKey;
    expect(verifyAll(signatureWithIdentityR(msg, s, IDENTITY.canonical), msg, publicKey)).toBe(
      true,
    );
    for (const r of [
      IDENTITY.yPlusP,
      IDENTITY.signBit,
      IDENTITY.yPlusPSignBit,
      MINUS_ONE_SIGN_BIT,
    ]) {
      expect(verifyAll(signatureWithIdentityR(msg, s, r), msg, publicKey)).toBe(false);
    }
  });

  it("accept keys of small order as RFC 8032 does", () => {
    const msg = new TextEncoder().encode("any message");
    let accepted = 0;
    for (const { key, canonical } of smallOrderKeys()) {
      expect(verifyAll(signatureForSmallOrderKey(key, msg), msg, key)).toBe(canonical);
      if (canonical) accepted++;
    }
    expect(accepted).toBe(8);
  });

  it.runIf(sodium)("route small order to RFC 8032, since libsodium alone refuses them", () => {
    const msg = new TextEncoder().encode("any message");
    for (const { key } of smallOrderKeys()) {
      const signature = signatureForSmallOrderKey(key, msg);
      expect((sodium as Sodium).crypto_sign_verify_detached(signature, msg, key)).toBe(false);
    }
  });

  it("reject wrong lengths without throwing", () => {
    const s = new Uint8Array(32).fill(3);
    const msg = new Uint8Array([1, 2, 3]);
    const signature = ed25519Sign(msg, s);
    const publicKey = ed25519KeyPairFromSeed(s).publicKey;
    expect(verifyAll(signature.slice(0, 63), msg, publicKey)).toBe(false);
    expect(verifyAll(Uint8Array.from([...signature, 0]), msg, publicKey)).toBe(false);
    expect(verifyAll(signature, msg, publicKey.slice(0, 31))).toBe(false);
    expect(verifyAll(signature, msg, Uint8Array.from([...publicKey, 0]))).toBe(false);
    expect(verifyAll(new Uint8Array(0), msg, new Uint8Array(0))).toBe(false);
  });

  it("throw TypeError for non-byte arguments", () => {
    const bytes = new Uint8Array(32);
    for (const verifier of Object.values(verifiers)) {
      expect(() => verifier.verify("sig" as unknown as Uint8Array, bytes, bytes)).toThrow(
        TypeError,
      );
      expect(() => verifier.verify(bytes, [] as unknown as Uint8Array, bytes)).toThrow(TypeError);
      expect(() => verifier.verify(bytes, bytes, null as unknown as Uint8Array)).toThrow(TypeError);
    }
  });
});
