import { normalizeAddress } from "@svc/canonical";
import { clientIp, readJsonBody } from "@svc/http";
import {
  PushUnsubscribeBody,
  parseRequest,
  ROUTES,
  routePattern,
  SMALL_BODY_LIMIT,
} from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { authenticateRecipient, requireAddressMember } from "../inbox/recipient.js";
import type { PushRoutes } from "./context.js";

/**
 * DELETE /v1/push/subscriptions: removes the address's subscription with that endpoint;
 * `removed` false when it had none (idempotent). Checks as for subscribing, up to freshness.
 */
export function registerUnsubscribeRoute(app: Hono<AppEnv>, routes: PushRoutes): void {
  const { services, subscriptions, inbox, limits } = routes;
  app.on(ROUTES.pushUnsubscribe.method, routePattern(ROUTES.pushUnsubscribe), async (c) => {
    limits.changePerIp.consume(clientIp(c, services.config.trustProxy));
    const body = await readJsonBody(c, SMALL_BODY_LIMIT);
    const request = parseRequest(PushUnsubscribeBody, body);
    requireAddressMember(request.address, "address");
    const address = normalizeAddress(request.address);
    await authenticateRecipient(services, inbox, c, request, address, "other");
    const removed = await subscriptions.unsubscribe(address, request.endpoint);
    if (removed) services.metrics.pushSubscriptionChanges.inc({ change: "removed" });
    return c.json({ ok: true, removed });
  });
}
