/**
 * The parameters of ECVRF-EDWARDS25519-SHA512-TAI (RFC 9381 section 5.5) and the encodings of
 * section 5.5 over @noble/curves' edwards25519 points.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { bytesToNumberLE, numberToBytesLE } from "@noble/curves/utils.js";

export type Point = InstanceType<typeof ed25519.Point>;
export const Point = ed25519.Point;

/** suite_string. */
export const SUITE = 0x03;
/** ptLen: bytes of an encoded point. */
export const POINT_LENGTH = 32;
/** cLen: bytes of the challenge c in a proof. */
export const CHALLENGE_LENGTH = 16;
/** qLen: bytes of the scalar s in a proof. */
export const SCALAR_LENGTH = 32;
/** Gamma || c || s. */
export const PROOF_LENGTH = POINT_LENGTH + CHALLENGE_LENGTH + SCALAR_LENGTH;
/** hLen: SHA-512, so beta is 64 bytes. */
export const OUTPUT_LENGTH = 64;
/** The secret key, as RFC 8032 section 5.1.5 takes it. */
export const SECRET_KEY_LENGTH = 32;
export const PUBLIC_KEY_LENGTH = POINT_LENGTH;

/** Arithmetic modulo q, the order of the prime subgroup (RFC 8032's L). */
export const Fn = Point.Fn;

/** point_to_string: RFC 8032 section 5.1.2. */
export function pointToString(point: Point): Uint8Array {
  return point.toBytes();
}

/**
 * string_to_point: RFC 8032 section 5.1.3 decoding, so undefined for y >= p, for a y with no x
 * on the curve, and for x = 0 with the sign bit set. Small-order points decode.
 */
export function stringToPoint(bytes: Uint8Array): Point | undefined {
  if (bytes.length !== POINT_LENGTH) return undefined;
  try {
    return Point.fromBytes(bytes, false);
  } catch {
    return undefined;
  }
}

const Y_BITS = (1n << 255n) - 1n;

/**
 * False for the strings RFC 8032's decoding refuses whatever the curve: y >= p, and the two
 * points with x = 0, (0, 1) and (0, -1), with the sign bit set. Every other string either
 * decodes or has no x on the curve.
 */
export function isCanonicalEncoding(bytes: Uint8Array): boolean {
  const y = bytesToNumberLE(bytes) & Y_BITS;
  const p = Point.Fp.ORDER;
  if (y >= p) return false;
  const signed = ((bytes[POINT_LENGTH - 1] ?? 0) & 0x80) !== 0;
  return !(signed && (y === 1n || y === p - 1n));
}

/** string_to_int: little-endian for this suite. */
export function stringToInt(bytes: Uint8Array): bigint {
  return bytesToNumberLE(bytes);
}

/** int_to_string: little-endian, `length` bytes. */
export function intToString(value: bigint, length: number): Uint8Array {
  return numberToBytesLE(value, length);
}
