/** D3: a signature's signedAt may be at most 5 minutes from the server clock, either way. */
export const SIGNED_AT_WINDOW_MS = 300_000;

export function isFresh(signedAt: number, now: number): boolean {
  if (typeof now !== "number" || !Number.isFinite(now)) {
    throw new TypeError("now must be a finite number");
  }
  if (typeof signedAt !== "number" || !Number.isFinite(signedAt)) return false;
  return Math.abs(now - signedAt) <= SIGNED_AT_WINDOW_MS;
}
