/** Socket errors of a connection that could not be made or was lost. */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** postgres.js errors of a connection that closed, timed out or was ended. */
const DRIVER_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

/**
 * SQLSTATEs of a server that is not there to answer: class 08 (connection exception),
 * 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting or stopping),
 * 53300 too_many_connections.
 */
const UNAVAILABLE_STATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;

/**
 * True when `error` (or an error it was caused by, as drizzle wraps the driver's) says that the
 * database could not be reached, rather than that a statement failed: the request may succeed
 * when retried later, so the server answers 503, not 500.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 8; depth++) {
    const code = (current as { code?: unknown }).code;
    if (
      typeof code === "string" &&
      (SOCKET_CODES.has(code) || DRIVER_CODES.has(code) || UNAVAILABLE_STATE.test(code))
    ) {
      return true;
    }
    current = current.cause;
  }
  return false;
}
