import { sha512 } from "@noble/hashes/sha2.js";
import { POINT_LENGTH, type Point, SUITE, stringToPoint } from "./suite.js";

const FRONT = 0x01;
const BACK = 0x00;

/**
 * ECVRF_encode_to_curve_try_and_increment (RFC 9381 section 5.4.1.1) with encode_to_curve_salt =
 * PK_string: the first ctr from 0 for which the first 32 bytes of
 * SHA-512(suite_string || 0x01 || salt || alpha_string || ctr || 0x00) decode to a point whose
 * cofactor multiple is not the identity. That multiple is H. Undefined when no ctr below 256 does,
 * which happens with probability about 2^-256.
 */
export function encodeToCurve(salt: Uint8Array, alpha: Uint8Array): Point | undefined {
  return tryAndIncrement(
    salt,
    alpha,
    (candidate) => stringToPoint(candidate)?.clearCofactor(),
    (h) => h.is0(),
  );
}

/**
 * The same H, by `clear`: cofactor * the point a candidate string decodes to, undefined when it
 * does not decode (RFC 8032 section 5.1.3), in whatever form `clear` computes it.
 */
export function tryAndIncrement<H>(
  salt: Uint8Array,
  alpha: Uint8Array,
  clear: (candidate: Uint8Array) => H | undefined,
  isIdentity: (h: H) => boolean,
): H | undefined {
  const input = new Uint8Array(2 + salt.length + alpha.length + 2);
  input[0] = SUITE;
  input[1] = FRONT;
  input.set(salt, 2);
  input.set(alpha, 2 + salt.length);
  const ctrAt = input.length - 2;
  input[input.length - 1] = BACK;
  for (let ctr = 0; ctr < 256; ctr++) {
    input[ctrAt] = ctr;
    const h = clear(sha512(input).subarray(0, POINT_LENGTH));
    if (h !== undefined && !isIdentity(h)) return h;
  }
  return undefined;
}
