/** The longest wait between attempts, whatever Retry-After asks. */
export const MAX_RETRY_WAIT_MS = 60_000;
/** The waits after a first and a second failed attempt when the answer names none. */
export const BACKOFF_MS = [1000, 2000] as const;

/** A backoff wait is stretched by up to this share of itself, drawn at random. */
const BACKOFF_JITTER = 0.5;

/**
 * How long to wait before attempt `attempt + 1`: the answer's Retry-After (delay-seconds or an
 * HTTP-date, RFC 9110 section 10.2.3) capped at 60 s, else 1 s, 2 s, 2 s... each stretched by a
 * random 0-50%: requests that failed together (a push service that hung, then timed out all of
 * them at once) are not all retried in the same instant, each encrypting and connecting on the
 * event loop the deposits' requests share.
 */
export function retryWaitMs(
  retryAfter: string | undefined,
  attempt: number,
  nowMs: number,
  random: () => number = Math.random,
): number {
  const asked = parseRetryAfter(retryAfter, nowMs);
  if (asked !== undefined) return Math.min(Math.max(asked, 0), MAX_RETRY_WAIT_MS);
  const backoff = BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length) - 1] ?? BACKOFF_MS[0];
  return Math.round(backoff * (1 + BACKOFF_JITTER * random()));
}

function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date starts with its day's name in all three of its forms.
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)/.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : date - nowMs;
}
