import { ed25519 } from "@noble/curves/ed25519.js";
import { challengeOfStrings } from "./challenge.js";
import { encodeToCurve } from "./encode-to-curve.js";
import { VrfError } from "./errors.js";
import { nonceGeneration } from "./nonce.js";
import {
  CHALLENGE_LENGTH,
  Fn,
  intToString,
  POINT_LENGTH,
  Point,
  PROOF_LENGTH,
  SCALAR_LENGTH,
  SECRET_KEY_LENGTH,
  stringToInt,
} from "./suite.js";

/**
 * The prover's secret-scalar multiplications on edwards25519, over 32-byte RFC 8032 point
 * encodings and 32-byte little-endian scalars below q. Both must run in constant time: the
 * scalars are the secret key and the nonce. The default is @noble/curves'; a server may pass a
 * native one (libsodium's crypto_scalarmult_ed25519_noclamp and _base_noclamp are about 20 and
 * 5 times faster).
 */
export interface ScalarArithmetic {
  /** scalar · point, for a point of the prime-order subgroup. */
  multiply(scalar: Uint8Array, point: Uint8Array): Uint8Array;
  /** scalar · B, the base point. */
  multiplyBase(scalar: Uint8Array): Uint8Array;
}

/** A secret key ready to prove: its expansion done once, the two H multiplications pluggable. */
export interface VrfProver {
  readonly publicKey: Uint8Array;
  /** ECVRF_prove (RFC 9381 section 5.1) of `alpha`: the 80-byte proof pi = Gamma || c || s. */
  prove(alpha: Uint8Array): Uint8Array;
}

export const nobleArithmetic: ScalarArithmetic = {
  multiply: (scalar, point) => Point.fromBytes(point).multiply(stringToInt(scalar)).toBytes(),
  multiplyBase: (scalar) => Point.BASE.multiply(stringToInt(scalar)).toBytes(),
};

/** A prover for `secretKey` (32 bytes) whose x·H, k·H and k·B go through `arithmetic`. */
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
  const { prefix, scalar: x, pointBytes: y } = ed25519.utils.getExtendedPublicKey(secretKey);
  const xString = intToString(x, SCALAR_LENGTH);
  return {
    publicKey: y.slice(),
    prove(alpha) {
      if (!(alpha instanceof Uint8Array)) throw new TypeError("alpha must be a Uint8Array");
      const h = encodeToCurve(y, alpha);
      if (h === undefined) {
        throw new VrfError("VRF_ENCODE_TO_CURVE_FAILED", "no ctr below 256 gave H");
      }
      const hString = h.toBytes();
      const gamma = multiply(xString, hString);
      const k = nonceGeneration(prefix, hString);
      const kString = intToString(k, SCALAR_LENGTH);
      const u = multiplyBase(kString);
      const c = challengeOfStrings([y, hString, gamma, u, multiply(kString, hString)]);
      const proof = new Uint8Array(PROOF_LENGTH);
      proof.set(gamma, 0);
      proof.set(intToString(c, CHALLENGE_LENGTH), POINT_LENGTH);
      proof.set(
        intToString(Fn.add(k, Fn.mul(c, x)), SCALAR_LENGTH),
        POINT_LENGTH + CHALLENGE_LENGTH,
      );
      return proof;
    },
  };
}
