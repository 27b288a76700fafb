/**
 * ECVRF-EDWARDS25519-SHA512-TAI, RFC 9381 section 5 with suite_string 0x03 (section 5.5): a
 * verifiable random function whose output beta only the holder of the secret key can compute,
 * and that anyone with the public key can check from the proof pi.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { challengeGeneration } from "./challenge.js";
import { encodeToCurve } from "./encode-to-curve.js";
import { VrfError } from "./errors.js";
import { decodeProof, gammaToHash } from "./proof.js";
import { vrfProver } from "./prover.js";
import { Point, SECRET_KEY_LENGTH, stringToPoint } from "./suite.js";

/** PK_string of a 32-byte secret key: the Ed25519 public key of RFC 8032 section 5.1.5. */
export function vrfPublicKey(secretKey: Uint8Array): Uint8Array {
  assertSecretKey(secretKey);
  return ed25519.getPublicKey(secretKey);
}

/**
 * ECVRF_prove (RFC 9381 section 5.1): the 80-byte proof pi = Gamma || c || s that beta (from
 * `vrfProofToHash(pi)`) is the VRF output of `alpha` under the key. Deterministic.
 */
export function vrfProve(secretKey: Uint8Array, alpha: Uint8Array): Uint8Array {
  assertSecretKey(secretKey);
  assertBytes("alpha", alpha);
  return vrfProver(secretKey).prove(alpha);
}

/**
 * ECVRF_proof_to_hash (RFC 9381 section 5.2): the 64-byte output beta of a proof. It does not
 * verify the proof: use it on proofs made here or already verified, or take beta from
 * `vrfVerify`. Throws VrfError VRF_INVALID_PROOF when the proof does not decode.
 */
export function vrfProofToHash(proof: Uint8Array): Uint8Array {
  assertBytes("proof", proof);
  const decoded = decodeProof(proof);
  if (decoded === undefined) {
    throw new VrfError("VRF_INVALID_PROOF", "proof must be 80 bytes: a point, c, and s below q");
  }
  return gammaToHash(decoded.gamma);
}

/**
 * ECVRF_verify (RFC 9381 section 5.3) with key validation (section 5.4.5): beta when `proof`
 * proves the VRF output of `alpha` under `publicKey`, else undefined, never a throw for any bytes.
 * Refused: a public key or Gamma that RFC 8032 does not decode (non-canonical y, no such point,
 * x = 0 with the sign bit), a public key of small order, s >= q, a wrong length, and a challenge
 * that does not match.
 */
export function vrfVerify(
  publicKey: Uint8Array,
  alpha: Uint8Array,
  proof: Uint8Array,
): Uint8Array | undefined {
  assertBytes("publicKey", publicKey);
  assertBytes("alpha", alpha);
  assertBytes("proof", proof);
  const y = stringToPoint(publicKey);
  if (y === undefined || y.isSmallOrder()) return undefined;
  const decoded = decodeProof(proof);
  if (decoded === undefined) return undefined;
  const { gamma, c, s } = decoded;
  const h = encodeToCurve(publicKey, alpha);
  if (h === undefined) return undefined;
  const u = Point.BASE.multiplyUnsafe(s).subtract(y.multiplyUnsafe(c));
  const v = h.multiplyUnsafe(s).subtract(gamma.multiplyUnsafe(c));
  if (challengeGeneration([y, h, gamma, u, v]) !== c) return undefined;
  return gammaToHash(gamma);
}

function assertSecretKey(secretKey: unknown): asserts secretKey is Uint8Array {
  assertBytes("secretKey", secretKey);
  if (secretKey.length !== SECRET_KEY_LENGTH) {
    throw new RangeError(`secretKey must be ${SECRET_KEY_LENGTH} bytes, got ${secretKey.length}`);
  }
}

/** A Uint8Array, also one made in another realm (a worker, an iframe); else a TypeError. */
function assertBytes(name: string, value: unknown): asserts value is Uint8Array {
  const isBytes =
    value instanceof Uint8Array ||
    (ArrayBuffer.isView(value) && value.constructor.name === "Uint8Array");
  if (!isBytes) throw new TypeError(`${name} must be a Uint8Array`);
}
