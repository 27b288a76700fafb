import { encodeBase64Url } from "@svc/canonical";

/** Longest Retry-After a quota refusal announces, whatever the queued blobs' expiry. */
export const MAX_RETRY_AFTER_SECONDS = 3600;

export interface TtlBounds {
  minTtlMs: number;
  maxTtlMs: number;
}

/** D6: the requested expiry clamped to [now + minTtl, now + maxTtl]. */
export function clampExpiry(requested: number, now: number, bounds: TtlBounds): number {
  return Math.min(Math.max(requested, now + bounds.minTtlMs), now + bounds.maxTtlMs);
}

/** Seconds until the oldest queued blob expires (freeing a slot), within [1, 3600]. */
export function retryAfterSeconds(oldestExpiresAt: number, now: number): number {
  const seconds = Math.ceil((oldestExpiresAt - now) / 1000);
  return Math.min(Math.max(seconds, 1), MAX_RETRY_AFTER_SECONDS);
}

/** D6: the `from` of a bridge envelope: the signed deposit member, else `key:` + base64url(key). */
export function senderName(from: string | undefined, senderPublicKey: Uint8Array): string {
  return from ?? `key:${encodeBase64Url(senderPublicKey)}`;
}
