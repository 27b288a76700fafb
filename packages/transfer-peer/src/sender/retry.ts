import { MAX_RETRY_WAIT_SECONDS } from "@svc/client";

/** How often and how patiently a request that met a network error, a 5xx or a 429 is sent again. */
export interface RetryPolicy {
  /** Sends of one request in all, the first included. */
  attempts: number;
  /** The first retry waits up to this; each further one up to twice the previous bound. */
  baseMs: number;
  /** Bound of any wait without Retry-After. */
  maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 8, baseMs: 250, maxMs: 15_000 };

/** What a `retry` event reports: a request that failed and will be sent again after `delayMs`. */
export interface RetryNotice {
  /** e.g. "chunk lane 2 seq 17", "control pause", "state". */
  request: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  delayMs: number;
  reason: string;
}

/** What a `recovered` event reports: a request that was retried got its answer at last. */
export interface RecoveryNotice {
  request: string;
  /** The attempt that was answered, from 2. */
  attempt: number;
}

/**
 * Full jitter: a uniform wait in 0..min(maxMs, baseMs * 2^(attempt - 1)), so that lanes failing
 * together do not come back together. A Retry-After (seconds) is waited as given, unless it is
 * longer than @svc/client waits for one: undefined then, meaning give up.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfterSeconds: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (retryAfterSeconds !== undefined) {
    return retryAfterSeconds <= MAX_RETRY_WAIT_SECONDS ? retryAfterSeconds * 1000 : undefined;
  }
  return Math.floor(random() * Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1)));
}

/** Retry-After as whole seconds; the HTTP-date form is not used by svc servers. */
export function parseRetryAfter(header: string | null | undefined): number | undefined {
  if (header == null || !/^\d{1,9}$/.test(header.trim())) return undefined;
  return Number(header.trim());
}
