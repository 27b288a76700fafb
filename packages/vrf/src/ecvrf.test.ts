import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { challengeGeneration } from "./challenge.js";
import { encodeToCurve } from "./encode-to-curve.js";
import {
  VRF_OUTPUT_LENGTH,
  VRF_PROOF_LENGTH,
  VrfError,
  vrfProofToHash,
  vrfProve,
  vrfPublicKey,
  vrfVerify,
} from "./index.js";
import { encodeProof } from "./proof.js";
import { Point } from "./suite.js";
import {
  fromLittleEndian,
  hex,
  INVALID_POINT_ENCODINGS,
  L,
  smallOrderEncodings,
  toLittleEndian,
} from "./test-support/encodings.js";

const secretKey = fc.uint8Array({ minLength: 32, maxLength: 32 });
const alpha = fc.uint8Array({ maxLength: 64 });
/** Proofs are 640 bits. */
const proofBit = fc.nat({ max: VRF_PROOF_LENGTH * 8 - 1 });

const distinctBytes = (a: Uint8Array, b: Uint8Array) => hex(a) !== hex(b);

function flipBit(bytes: Uint8Array, bit: number): Uint8Array {
  const copy = bytes.slice();
  copy[bit >> 3] = (copy[bit >> 3] as number) ^ (1 << (bit & 7));
  return copy;
}

function withS(proof: Uint8Array, s: bigint): Uint8Array {
  const copy = proof.slice();
  copy.set(toLittleEndian(s), 48);
  return copy;
}

function invalidProofCode(proof: Uint8Array): string {
  try {
    vrfProofToHash(proof);
    return "accepted";
  } catch (error) {
    return error instanceof VrfError ? error.code : String(error);
  }
}

describe("vrfProve and vrfVerify", () => {
  it("round trip: a proof verifies, and verify returns its beta", () => {
    fc.assert(
      fc.property(secretKey, alpha, (sk, a) => {
        const proof = vrfProve(sk, a);
        expect(proof).toHaveLength(VRF_PROOF_LENGTH);
        const beta = vrfVerify(vrfPublicKey(sk), a, proof);
        expect(beta).toHaveLength(VRF_OUTPUT_LENGTH);
        expect(beta).toEqual(vrfProofToHash(proof));
      }),
      { numRuns: 40 },
    );
  });

  it("is deterministic: the same key and alpha give the same proof and beta", () => {
    fc.assert(
      fc.property(secretKey, alpha, (sk, a) => {
        const proof = vrfProve(sk, a);
        expect(vrfProve(sk.slice(), a.slice())).toEqual(proof);
        expect(vrfVerify(vrfPublicKey(sk), a, proof)).toEqual(vrfProofToHash(vrfProve(sk, a)));
      }),
      { numRuns: 20 },
    );
  });

  it("gives different beta for different alpha under one key", () => {
    fc.assert(
      fc.property(secretKey, alpha, alpha, (sk, a, b) => {
        fc.pre(distinctBytes(a, b));
        expect(hex(vrfProofToHash(vrfProve(sk, a)))).not.toBe(hex(vrfProofToHash(vrfProve(sk, b))));
      }),
      { numRuns: 20 },
    );
  });

  it("reads its arguments where they are: subarrays of a larger buffer", () => {
    const buffer = Uint8Array.from({ length: 100 }, (_, i) => i);
    const sk = buffer.subarray(3, 35);
    const a = buffer.subarray(50, 60);
    const proof = vrfProve(sk, a);
    expect(proof).toEqual(vrfProve(sk.slice(), a.slice()));
    const padded = new Uint8Array(200);
    padded.set(proof, 7);
    expect(vrfVerify(vrfPublicKey(sk), a, padded.subarray(7, 87))).toEqual(vrfProofToHash(proof));
  });
});

describe("vrfVerify refuses", () => {
  it("a proof for another alpha", () => {
    fc.assert(
      fc.property(secretKey, alpha, alpha, (sk, a, b) => {
        fc.pre(distinctBytes(a, b));
        expect(vrfVerify(vrfPublicKey(sk), b, vrfProve(sk, a))).toBeUndefined();
      }),
      { numRuns: 30 },
    );
  });

  it("a proof under another key", () => {
    fc.assert(
      fc.property(secretKey, secretKey, alpha, (sk, other, a) => {
        fc.pre(distinctBytes(sk, other));
        expect(vrfVerify(vrfPublicKey(other), a, vrfProve(sk, a))).toBeUndefined();
      }),
      { numRuns: 30 },
    );
  });

  it("a proof with any one bit flipped", () => {
    fc.assert(
      fc.property(secretKey, alpha, proofBit, (sk, a, bit) => {
        const proof = flipBit(vrfProve(sk, a), bit);
        expect(vrfVerify(vrfPublicKey(sk), a, proof)).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });

  it("every flipped bit of one proof", () => {
    const sk = new Uint8Array(32).fill(7);
    const a = new TextEncoder().encode("alice@example.org");
    const proof = vrfProve(sk, a);
    const pk = vrfPublicKey(sk);
    for (let bit = 0; bit < VRF_PROOF_LENGTH * 8; bit++) {
      expect(vrfVerify(pk, a, flipBit(proof, bit)), `bit ${bit}`).toBeUndefined();
    }
  });

  it("a non-canonical s (s + L), which proofToHash refuses too", () => {
    fc.assert(
      fc.property(secretKey, alpha, (sk, a) => {
        const proof = vrfProve(sk, a);
        const malleated = withS(proof, fromLittleEndian(proof.subarray(48)) + L);
        expect(vrfVerify(vrfPublicKey(sk), a, malleated)).toBeUndefined();
        expect(invalidProofCode(malleated)).toBe("VRF_INVALID_PROOF");
      }),
      { numRuns: 20 },
    );
  });

  it("s = L exactly and s = 2^256 - 1", () => {
    const sk = new Uint8Array(32).fill(1);
    const proof = vrfProve(sk, new Uint8Array());
    for (const s of [L, 2n ** 256n - 1n]) {
      expect(vrfVerify(vrfPublicKey(sk), new Uint8Array(), withS(proof, s))).toBeUndefined();
      expect(invalidProofCode(withS(proof, s))).toBe("VRF_INVALID_PROOF");
    }
  });

  it.each(Object.entries(INVALID_POINT_ENCODINGS))("Gamma and the public key as %s", (_, bad) => {
    expect(() => Point.fromBytes(bad)).toThrow();
    const sk = new Uint8Array(32).fill(2);
    const a = Uint8Array.of(1, 2, 3);
    const proof = vrfProve(sk, a);
    const badGamma = proof.slice();
    badGamma.set(bad, 0);
    expect(vrfVerify(vrfPublicKey(sk), a, badGamma)).toBeUndefined();
    expect(invalidProofCode(badGamma)).toBe("VRF_INVALID_PROOF");
    expect(vrfVerify(bad, a, proof)).toBeUndefined();
  });

  it("public keys of small order (RFC 9381 section 5.4.5), even with a proof that fits them", () => {
    const a = new TextEncoder().encode("any alpha");
    const encodings = smallOrderEncodings();
    expect(encodings.filter((e) => e.decodes)).toHaveLength(8);
    for (const { bytes, decodes } of encodings) {
      if (decodes) expect(Point.fromBytes(bytes).isSmallOrder()).toBe(true);
      else expect(() => Point.fromBytes(bytes)).toThrow();
      expect(vrfVerify(bytes, a, vrfProve(new Uint8Array(32), a))).toBeUndefined();
    }
    // With Y the identity, Gamma the identity and any s, U = s*B and V = s*H whatever c is, so
    // (identity, c, s) passes the challenge for every alpha: only the key check refuses it.
    const identity = encodings[0]?.bytes as Uint8Array;
    const y = Point.fromBytes(identity);
    const h = encodeToCurve(identity, a) as Point;
    const s = 12345n;
    const gamma = Point.ZERO;
    const c = challengeGeneration([y, h, gamma, Point.BASE.multiply(s), h.multiply(s)]);
    const forged = encodeProof(gamma.toBytes(), c, s);
    expect(vrfProofToHash(forged)).toHaveLength(64);
    expect(vrfVerify(identity, a, forged)).toBeUndefined();
  });

  it("anything of the wrong length", () => {
    const sk = new Uint8Array(32).fill(3);
    const proof = vrfProve(sk, new Uint8Array());
    const pk = vrfPublicKey(sk);
    for (const length of [0, 32, 79, 81, 96]) {
      const wrong = new Uint8Array(length);
      wrong.set(proof.subarray(0, Math.min(length, 80)));
      expect(vrfVerify(pk, new Uint8Array(), wrong)).toBeUndefined();
      expect(invalidProofCode(wrong)).toBe("VRF_INVALID_PROOF");
    }
    expect(vrfVerify(pk.subarray(0, 31), new Uint8Array(), proof)).toBeUndefined();
    expect(vrfVerify(Uint8Array.of(...pk, 0), new Uint8Array(), proof)).toBeUndefined();
  });

  it("random bytes, without ever throwing", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        alpha,
        fc.uint8Array({ minLength: 80, maxLength: 80 }),
        (pk, a, proof) => {
          expect(vrfVerify(pk, a, proof)).toBeUndefined();
        },
      ),
      { numRuns: 200 },
    );
  });

  it("random proofs under a valid key, and random c and s around a valid Gamma", () => {
    const sk = new Uint8Array(32).fill(4);
    const pk = vrfPublicKey(sk);
    const a = Uint8Array.of(9);
    const gamma = vrfProve(sk, a).subarray(0, 32);
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 48, maxLength: 48 }), (cs) => {
        expect(vrfVerify(pk, a, Uint8Array.of(...gamma, ...cs))).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });
});

describe("wrong arguments", () => {
  const bytes32 = new Uint8Array(32);
  const proof = vrfProve(bytes32, new Uint8Array());

  it("vrfPublicKey: a TypeError or RangeError naming secretKey", () => {
    expect(() => vrfPublicKey("key" as unknown as Uint8Array)).toThrow(
      new TypeError("secretKey must be a Uint8Array"),
    );
    expect(() => vrfPublicKey(new Uint8Array(31))).toThrow(RangeError);
    expect(() => vrfPublicKey(new Uint8Array(64))).toThrow(/secretKey must be 32 bytes, got 64/);
  });

  it("vrfProve: secretKey and alpha", () => {
    expect(() => vrfProve([1, 2] as unknown as Uint8Array, new Uint8Array())).toThrow(TypeError);
    expect(() => vrfProve(new Uint8Array(33), new Uint8Array())).toThrow(RangeError);
    expect(() => vrfProve(bytes32, "alpha" as unknown as Uint8Array)).toThrow(
      new TypeError("alpha must be a Uint8Array"),
    );
  });

  it("vrfVerify: a TypeError naming the argument that is not bytes", () => {
    const notBytes = new Uint16Array(16) as unknown as Uint8Array;
    expect(() => vrfVerify(notBytes, new Uint8Array(), proof)).toThrow(/publicKey/);
    expect(() => vrfVerify(bytes32, notBytes, proof)).toThrow(/alpha/);
    expect(() => vrfVerify(bytes32, new Uint8Array(), notBytes)).toThrow(/proof/);
  });

  it("vrfProofToHash: a TypeError for non-bytes, VrfError for bytes that are no proof", () => {
    expect(() => vrfProofToHash(undefined as unknown as Uint8Array)).toThrow(TypeError);
    expect(invalidProofCode(new Uint8Array(80).fill(0xff))).toBe("VRF_INVALID_PROOF");
  });
});
