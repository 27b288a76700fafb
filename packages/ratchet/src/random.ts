import { randomBytes } from "@noble/hashes/utils.js";
import { isBytes } from "@svc/canonical";

/** A source of random bytes; tests inject a seeded one to get reproducible transcripts. */
export type RandomBytes = (length: number) => Uint8Array;

/** globalThis.crypto.getRandomValues, through @noble/hashes. */
export const defaultRandom: RandomBytes = (length) => randomBytes(length);

/** `length` bytes from `random`, which is caller-supplied and so checked. */
export function drawRandom(random: RandomBytes, length: number): Uint8Array {
  const bytes = random(length);
  if (!isBytes(bytes) || bytes.length !== length) {
    throw new TypeError(`random must return a Uint8Array of the requested length ${length}`);
  }
  return bytes;
}
