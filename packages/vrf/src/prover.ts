import { ed25519 } from "@noble/curves/ed25519.js";
import { equalBytes } from "@noble/curves/utils.js";
import { challengeOfStrings } from "./challenge.js";
import { tryAndIncrement } from "./encode-to-curve.js";
import { VrfError } from "./errors.js";
import { nonceGeneration } from "./nonce.js";
import { cofactorGammaToHash } from "./proof.js";
import {
  CHALLENGE_LENGTH,
  Fn,
  intToString,
  isCanonicalEncoding,
  POINT_LENGTH,
  Point,
  PROOF_LENGTH,
  SCALAR_LENGTH,
  SECRET_KEY_LENGTH,
  stringToInt,
  stringToPoint,
} from "./suite.js";

/**
 * The prover's point arithmetic on edwards25519, over 32-byte RFC 8032 point encodings and
 * 32-byte little-endian scalars below q. The multiplications must run in constant time: their
 * scalars are the secret key and the nonce. The default is @noble/curves'; a server may pass a
 * native one (libsodium's crypto_scalarmult_ed25519_noclamp and _base_noclamp are about 20 and
 * 5 times faster, three of its crypto_core_ed25519_add a cofactor multiple in some 30 µs where
 * decoding, multiplying and encoding again take @noble/curves about 85).
 */
export interface ScalarArithmetic {
  /** scalar · point, for a point of the prime-order subgroup. */
  multiply(scalar: Uint8Array, point: Uint8Array): Uint8Array;
  /** scalar · B, the base point. */
  multiplyBase(scalar: Uint8Array): Uint8Array;
  /**
   * cofactor · point, for an RFC 8032 encoding whose y is below p, of any point of the curve
   * (small-order and mixed ones too); undefined when no point of the curve has that y. Used on
   * public points only (H's candidates, Gamma). Optional: without it, @noble/curves clears.
   */
  clearCofactor?(point: Uint8Array): Uint8Array | undefined;
}

/** A secret key ready to prove: its expansion done once, the two H multiplications pluggable. */
export interface VrfProver {
  readonly publicKey: Uint8Array;
  /** ECVRF_prove (RFC 9381 section 5.1) of `alpha`: the 80-byte proof pi = Gamma || c || s. */
  prove(alpha: Uint8Array): Uint8Array;
  /** The proof and its VRF output beta (what vrfProofToHash gives for it), found together. */
  proveWithOutput(alpha: Uint8Array): { proof: Uint8Array; beta: Uint8Array };
}

export const nobleArithmetic: ScalarArithmetic = {
  multiply: (scalar, point) => Point.fromBytes(point).multiply(stringToInt(scalar)).toBytes(),
  multiplyBase: (scalar) => Point.BASE.multiply(stringToInt(scalar)).toBytes(),
};

/**
 * A prover for `secretKey` (32 bytes) whose x·H, k·H and k·B, and the cofactor multiples of H's
 * candidates and of Gamma when it has clearCofactor, go through `arithmetic`.
 */
export function vrfProver(
  secretKey: Uint8Array,
  arithmetic: ScalarArithmetic = nobleArithmetic,
): VrfProver {
  if (!(secretKey instanceof Uint8Array)) throw new TypeError("secretKey must be a Uint8Array");
  if (secretKey.length !== SECRET_KEY_LENGTH) {
    throw new RangeError(`secretKey must be ${SECRET_KEY_LENGTH} bytes`);
  }
  if (typeof arithmetic?.multiply !== "function" || typeof arithmetic.multiplyBase !== "function") {
    throw new TypeError("arithmetic must have multiply and multiplyBase functions");
  }
  const { multiply, multiplyBase } = arithmetic;
  const clear = arithmetic.clearCofactor?.bind(arithmetic) ?? nobleClearCofactor;
  const { prefix, scalar: x, pointBytes: y } = ed25519.utils.getExtendedPublicKey(secretKey);
  const xString = intToString(x, SCALAR_LENGTH);
  const proveFrom = (alpha: Uint8Array) => {
    if (!(alpha instanceof Uint8Array)) throw new TypeError("alpha must be a Uint8Array");
    const hString = tryAndIncrement(
      y,
      alpha,
      (candidate) => (isCanonicalEncoding(candidate) ? clear(candidate) : undefined),
      (h) => equalBytes(h, IDENTITY),
    );
    if (hString === undefined) {
      throw new VrfError("VRF_ENCODE_TO_CURVE_FAILED", "no ctr below 256 gave H");
    }
    const gamma = multiply(xString, hString);
    const k = nonceGeneration(prefix, hString);
    const kString = intToString(k, SCALAR_LENGTH);
    const u = multiplyBase(kString);
    const c = challengeOfStrings([y, hString, gamma, u, multiply(kString, hString)]);
    const proof = new Uint8Array(PROOF_LENGTH);
    proof.set(gamma, 0);
    proof.set(intToString(c, CHALLENGE_LENGTH), POINT_LENGTH);
    proof.set(intToString(Fn.add(k, Fn.mul(c, x)), SCALAR_LENGTH), POINT_LENGTH + CHALLENGE_LENGTH);
    return { proof, gamma };
  };
  return {
    publicKey: y.slice(),
    prove: (alpha) => proveFrom(alpha).proof,
    proveWithOutput(alpha) {
      const { proof, gamma } = proveFrom(alpha);
      // Gamma, a multiple of H, is a point of the curve: clearing its cofactor always gives one.
      return { proof, beta: cofactorGammaToHash(clear(gamma) as Uint8Array) };
    },
  };
}

/** The encoding of the identity, (0, 1). */
const IDENTITY = Point.ZERO.toBytes();

function nobleClearCofactor(point: Uint8Array): Uint8Array | undefined {
  return stringToPoint(point)?.clearCofactor().toBytes();
}
