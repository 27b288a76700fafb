import { SIGNED_AT_WINDOW_MS } from "@svc/canonical";

/** Limits of the interface; server defaults that an operator may change are marked so. */
export const LIMITS = {
  addressLength: 256,
  signedAtWindowMs: SIGNED_AT_WINDOW_MS,
  /** One-time prekeys per register or replenish request, and queued per address. */
  prekeysPerRequest: 100,
  prekeysQueued: 1000,
  /** One-time ML-KEM prekeys queued per address (the last-resort key not counted). */
  kemPreKeysQueued: 1000,
  /** Devices on one account's list. */
  devicesPerAccount: 16,
  /** Web Push subscriptions kept per address (a new endpoint past this is refused). */
  pushSubscriptionsPerAddress: 8,
  /** Characters of a push subscription's endpoint URL. */
  pushEndpointLength: 1024,
  /** Server default; configurable. */
  maxBlobBytes: 1024 * 1024,
  /** Server default; configurable. */
  inboxQuota: 1000,
  /** Deposits in one POST /v1/deposits: a send to 16 devices plus copies to 15 own ones fits. */
  depositsPerBatch: 32,
  fetchLimit: { min: 1, max: 100, default: 50 },
  pollTimeoutMs: { max: 55_000, default: 25_000 },
  pollBatch: 100,
  heartbeatMs: 15_000,
  watchedAddresses: 64,
  /** Client default for refusing an old STH. */
  maxStaleMs: 24 * 60 * 60_000,
  /** Receiver default; configurable. 16 MiB of data plus the chunk header and AEAD tag. */
  maxChunkBytes: 16 * 1024 * 1024 + 29 + 8 + 16,
} as const;

/** Keys request bodies without KEM keys (delete): 101 prekeys take about 9 KiB. */
export const KEYS_BODY_LIMIT = 64 * 1024;
/**
 * Register and replenish: 100 one-time X25519 prekeys, 100 one-time ML-KEM-1024 prekeys (about
 * 2.2 KiB each in JSON) and a last-resort KEM key take about 230 KiB.
 */
export const KEYS_UPLOAD_BODY_LIMIT = 256 * 1024;
/** Inbox register, unregister, fetch and ack bodies. */
export const SMALL_BODY_LIMIT = 16 * 1024;
/** Room for the JSON members around a deposit's base64 ciphertext. */
const DEPOSIT_JSON_OVERHEAD = 8 * 1024;

/**
 * The most bytes a batch of deposits may have: one deposit's limit plus the other members of each
 * further item. A batch carries at most one largest blob's worth of ciphertext in all; a sender
 * with more sends its deposits one by one.
 */
export function depositBatchBodyLimit(maxBlobBytes: number): number {
  return depositBodyLimit(maxBlobBytes) + LIMITS.depositsPerBatch * DEPOSIT_JSON_OVERHEAD;
}

/** The most bytes a deposit body may have: base64 of maxBlobBytes plus the other members. */
export function depositBodyLimit(maxBlobBytes: number): number {
  return Math.ceil((maxBlobBytes * 4) / 3) + DEPOSIT_JSON_OVERHEAD;
}
