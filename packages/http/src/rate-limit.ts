import { SvcError } from "@svc/protocol";

/** One limit (e.g. register per address): a token bucket per key. */
export interface RateLimit {
  /** Takes a token for `key`; throws 429 SVC_RATE_LIMITED with Retry-After when none is left. */
  consume(key: string): void;
}

export interface RateLimitOptions {
  /** Route pattern, reported with each rejection. */
  route: string;
  /** Name of the limit (e.g. `register_per_address`), reported with each rejection. */
  limit: string;
  perMinute: number;
  /** Most keys tracked at once; beyond it the least recently used bucket is dropped. */
  maxKeys?: number;
  now: () => number;
  /** Told of each rejection, for metrics and events. */
  onReject?: (rejection: { route: string; limit: string; at: number }) => void;
}

/** A per-instance, in-memory limit. */
export function createRateLimit(options: RateLimitOptions): RateLimit {
  const buckets = new TokenBuckets(options.perMinute, options.maxKeys);
  const { route, limit, now, onReject } = options;
  return {
    consume(key) {
      const at = now();
      const retryAfterSeconds = buckets.take(key, at);
      if (retryAfterSeconds === 0) return;
      onReject?.({ route, limit, at });
      throw new SvcError(
        "SVC_RATE_LIMITED",
        `rate limit ${limit} exceeded; retry in ${retryAfterSeconds} s`,
        { retryAfterSeconds },
      );
    },
  };
}

/** A limit that admits everything, for a server run with rate limiting off. */
export const unlimited: RateLimit = { consume() {} };

const MINUTE_MS = 60_000;
const DEFAULT_MAX_KEYS = 100_000;

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Buckets of `perMinute` tokens refilled continuously at `perMinute` per minute. The map is kept
 * in order of last use, so buckets idle for a minute (full again, thus the same as absent) are
 * found at its front and dropped as other keys are used: memory follows the active keys only.
 */
export class TokenBuckets {
  readonly #capacity: number;
  readonly #perMs: number;
  readonly #maxKeys: number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(perMinute: number, maxKeys = DEFAULT_MAX_KEYS) {
    if (!Number.isSafeInteger(perMinute) || perMinute < 1) {
      throw new RangeError("perMinute must be a positive integer");
    }
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) {
      throw new RangeError("maxKeys must be a positive integer");
    }
    this.#capacity = perMinute;
    this.#perMs = perMinute / MINUTE_MS;
    this.#maxKeys = maxKeys;
  }

  /** Number of keys currently tracked. */
  get size(): number {
    return this.#buckets.size;
  }

  /** Takes one token: 0 when granted, else the whole seconds (>= 1) until one is available. */
  take(key: string, now: number): number {
    const bucket = this.#buckets.get(key);
    let tokens = this.#capacity;
    if (bucket) {
      tokens = Math.min(
        this.#capacity,
        bucket.tokens + Math.max(0, now - bucket.updatedAt) * this.#perMs,
      );
      this.#buckets.delete(key);
    }
    const granted = tokens >= 1;
    this.#buckets.set(key, { tokens: granted ? tokens - 1 : tokens, updatedAt: now });
    this.#evict(now);
    if (granted) return 0;
    return Math.max(1, Math.ceil((1 - tokens) / this.#perMs / 1000));
  }

  #evict(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      const idleAndFull = now - bucket.updatedAt >= MINUTE_MS;
      if (!idleAndFull && this.#buckets.size <= this.#maxKeys) break;
      this.#buckets.delete(key);
    }
  }
}
