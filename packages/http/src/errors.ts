import type { Logger } from "@svc/node-kit";
import { SvcError, toSvcError } from "@svc/protocol";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * The one place a thrown error becomes an ErrorResponse: its status comes from the code's entry
 * in @svc/protocol; anything that is not an SvcError (or a CanonicalError) is an opaque 500,
 * logged with what an operator needs and never the request.
 */
export function errorResponder(logger: Logger) {
  return function respondWithError(error: unknown, c: Context): Response {
    const refusal = toSvcError(error);
    if (refusal.code === "SVC_INTERNAL") {
      logger.error("unhandled error", { requestId: c.get("requestId"), ...describeError(error) });
    } else if (refusal.status >= 500) {
      // A backend that is away (503): expected during an outage, and no fault of the code.
      logger.warn("unavailable", { requestId: c.get("requestId"), ...describeError(error) });
    }
    if (refusal.retryAfterSeconds !== undefined) {
      c.header("Retry-After", String(refusal.retryAfterSeconds));
    }
    for (const [name, value] of Object.entries(refusal.headers)) c.header(name, value);
    // The message of an internal error may name internals; the client learns only that it failed.
    const body = refusal.code === "SVC_INTERNAL" ? INTERNAL.body() : refusal.body();
    return c.json(body, refusal.status as ContentfulStatusCode);
  };
}

const INTERNAL = new SvcError("SVC_INTERNAL", "internal error");

/**
 * Unknown routes are a 404 ErrorResponse like any other; answered, not thrown, so that the request
 * middleware still counts and logs it.
 */
export function routeNotFound(c: Context): Response {
  return c.json(NOT_FOUND.body(), 404);
}

const NOT_FOUND = new SvcError("SVC_NOT_FOUND", "no such route");

/**
 * The error's kind, its message and PostgreSQL's SQLSTATE; never PostgreSQL's `detail`, which
 * quotes row values.
 */
function describeError(error: unknown): Record<string, string> {
  const cause = error instanceof SvcError && error.cause !== undefined ? error.cause : error;
  if (!(cause instanceof Error)) return { error: "unknown" };
  const described: Record<string, string> = { error: cause.name, reason: cause.message };
  const sqlState = (cause as { code?: unknown }).code;
  if (typeof sqlState === "string") described.sqlState = sqlState;
  return described;
}
