/** The longest wait between attempts, whatever Retry-After asks. */
export const MAX_RETRY_WAIT_MS = 60_000;
/** The waits after a first and a second failed attempt when the answer names none. */
export const BACKOFF_MS = [1000, 2000] as const;

/**
 * How long to wait before attempt `attempt + 1`: the answer's Retry-After (delay-seconds or an
 * HTTP-date, RFC 9110 section 10.2.3) capped at 60 s, else 1 s, 2 s, 2 s...
 */
export function retryWaitMs(
  retryAfter: string | undefined,
  attempt: number,
  nowMs: number,
): number {
  const asked = parseRetryAfter(retryAfter, nowMs);
  if (asked !== undefined) return Math.min(Math.max(asked, 0), MAX_RETRY_WAIT_MS);
  return BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length) - 1] ?? BACKOFF_MS[0];
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
