import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Compares a presented bearer token with the configured one in constant time: both are hashed
 * first so that neither their contents nor the expected length leak through timing.
 */
export function tokenMatches(expected: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();
  return timingSafeEqual(digest(expected), digest(presented));
}

/** The bearer token of an Authorization header, if it carries one. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer ([^\s]+)$/i);
  return match?.[1];
}
