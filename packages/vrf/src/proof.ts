import { sha512 } from "@noble/hashes/sha2.js";
import {
  CHALLENGE_LENGTH,
  Fn,
  intToString,
  POINT_LENGTH,
  type Point,
  PROOF_LENGTH,
  pointToString,
  SCALAR_LENGTH,
  SUITE,
  stringToInt,
  stringToPoint,
} from "./suite.js";

/** A proof's three parts: Gamma = x*H, the challenge c and s = k + c*x mod q. */
export interface DecodedProof {
  gamma: Point;
  c: bigint;
  s: bigint;
}

/** pi_string = point_to_string(Gamma) || int_to_string(c, 16) || int_to_string(s, 32). */
export function encodeProof(gamma: Uint8Array, c: bigint, s: bigint): Uint8Array {
  const proof = new Uint8Array(PROOF_LENGTH);
  proof.set(gamma, 0);
  proof.set(intToString(c, CHALLENGE_LENGTH), POINT_LENGTH);
  proof.set(intToString(s, SCALAR_LENGTH), POINT_LENGTH + CHALLENGE_LENGTH);
  return proof;
}

/**
 * ECVRF_decode_proof (RFC 9381 section 5.4.4): undefined when the proof is not 80 bytes, Gamma
 * does not decode (RFC 8032 section 5.1.3), or s >= q (a second encoding of the same s).
 */
export function decodeProof(proof: Uint8Array): DecodedProof | undefined {
  if (proof.length !== PROOF_LENGTH) return undefined;
  const gamma = stringToPoint(proof.subarray(0, POINT_LENGTH));
  if (gamma === undefined) return undefined;
  const c = stringToInt(proof.subarray(POINT_LENGTH, POINT_LENGTH + CHALLENGE_LENGTH));
  const s = stringToInt(proof.subarray(POINT_LENGTH + CHALLENGE_LENGTH));
  if (s >= Fn.ORDER) return undefined;
  return { gamma, c, s };
}

const FRONT = 0x03;
const BACK = 0x00;

/**
 * The hash of ECVRF_proof_to_hash (RFC 9381 section 5.2):
 * beta = SHA-512(suite_string || 0x03 || point_to_string(cofactor * Gamma) || 0x00).
 */
export function gammaToHash(gamma: Point): Uint8Array {
  return cofactorGammaToHash(pointToString(gamma.clearCofactor()));
}

/** The same hash, from point_to_string(cofactor * Gamma) already computed. */
export function cofactorGammaToHash(cofactorGamma: Uint8Array): Uint8Array {
  const input = new Uint8Array(2 + POINT_LENGTH + 1);
  input[0] = SUITE;
  input[1] = FRONT;
  input.set(cofactorGamma, 2);
  input[input.length - 1] = BACK;
  return sha512(input);
}
