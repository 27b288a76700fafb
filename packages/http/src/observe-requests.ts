import type { Logger } from "@svc/node-kit";
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { MetricsRegistry } from "./metrics.js";

/** What every app built on this kit keeps per request. */
export interface RequestVariables {
  requestId: string;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Gives each request an id (the caller's `X-Request-Id` when well-formed), counts it in
 * `svc_requests_total` by route pattern (never the raw path) and logs one line of metadata.
 */
export function observeRequests(
  metrics: MetricsRegistry,
  logger: Logger,
): MiddlewareHandler<{ Variables: RequestVariables }> {
  return async function observeRequest(c, next) {
    const started = performance.now();
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    c.set("requestId", requestId);
    // Set before the handler runs: setting a header on a finished response makes Hono copy it
    // into a new streamed Response, which costs more than the rest of a bundle fetch.
    c.header("X-Request-Id", requestId);
    await next();
    if (!c.res.headers.has("X-Request-Id")) c.header("X-Request-Id", requestId);
    const route = routePattern(c);
    metrics.requests.inc({ route, status: String(c.res.status) });
    logger.info("request", {
      requestId,
      method: c.req.method,
      route,
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
    });
  };
}

function routePattern(c: Context): string {
  const handlers = matchedRoutes(c).filter((route) => route.method !== "ALL");
  return handlers.at(-1)?.path ?? "unmatched";
}
