import { PushUnsubscribeBody, ROUTES, routePattern } from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { type PushRoutes, signedPushRequest } from "./context.js";

/**
 * DELETE /v1/push/subscriptions: removes the address's subscription with that endpoint;
 * `removed` false when it had none (idempotent). Checks as for subscribing, up to freshness.
 */
export function registerUnsubscribeRoute(app: Hono<AppEnv>, routes: PushRoutes): void {
  const { services, subscriptions } = routes;
  app.on(ROUTES.pushUnsubscribe.method, routePattern(ROUTES.pushUnsubscribe), async (c) => {
    const { request, address } = await signedPushRequest(c, routes, PushUnsubscribeBody);
    const removed = await subscriptions.unsubscribe(address, request.endpoint);
    if (removed) services.metrics.pushSubscriptionChanges.inc({ change: "removed" });
    return c.json({ ok: true, removed });
  });
}
