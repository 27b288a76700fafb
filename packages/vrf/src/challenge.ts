import { sha512 } from "@noble/hashes/sha2.js";
import {
  CHALLENGE_LENGTH,
  POINT_LENGTH,
  type Point,
  pointToString,
  SUITE,
  stringToInt,
} from "./suite.js";

const FRONT = 0x02;
const BACK = 0x00;

/**
 * ECVRF_challenge_generation (RFC 9381 section 5.4.3) of five points (Y, H, Gamma, U, V):
 * c = the first 16 bytes of SHA-512(suite_string || 0x02 || P1 || ... || P5 || 0x00) as a
 * little-endian integer.
 */
export function challengeGeneration(points: readonly [Point, Point, Point, Point, Point]): bigint {
  return challengeOfStrings(points.map(pointToString));
}

/** {@link challengeGeneration} of the five points' strings (point_to_string of each). */
export function challengeOfStrings(strings: readonly Uint8Array[]): bigint {
  const input = new Uint8Array(2 + strings.length * POINT_LENGTH + 1);
  input[0] = SUITE;
  input[1] = FRONT;
  for (const [i, string] of strings.entries()) input.set(string, 2 + i * POINT_LENGTH);
  input[input.length - 1] = BACK;
  return stringToInt(sha512(input).subarray(0, CHALLENGE_LENGTH));
}
