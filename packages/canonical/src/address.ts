import { CanonicalError } from "./errors.js";

const ADDRESS_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9@:_.-]{0,255}$/;

/*
 * A valid result is ASCII, and NFKC never composes into ASCII, so every input code point yields at
 * least one output character: an input longer than 2 * 256 UTF-16 units can never be valid. Checking
 * that first keeps NFKC of a huge untrusted string off the hot path.
 */
const MAX_RAW_LENGTH = 512;

/** D2: NFKC, then the address pattern (which allows `@` and never `,`). */
export function normalizeAddress(raw: string): string {
  if (typeof raw !== "string") throw new TypeError("raw must be a string");
  const normalized = raw.length <= MAX_RAW_LENGTH ? raw.normalize("NFKC") : "";
  if (!ADDRESS_PATTERN.test(normalized)) {
    throw new CanonicalError("INVALID_ADDRESS", "address does not match the address pattern");
  }
  return normalized;
}

export function isValidAddress(raw: unknown): boolean {
  if (typeof raw !== "string" || raw.length > MAX_RAW_LENGTH) return false;
  return ADDRESS_PATTERN.test(raw.normalize("NFKC"));
}
