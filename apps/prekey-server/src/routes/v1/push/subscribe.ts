import { LIMITS, PushSubscribeBody, ROUTES, routePattern, SvcError } from "@svc/protocol";
import {
  checkEndpoint,
  decodeSubscriptionKeys,
  PushError,
  type SubscriptionKeys,
} from "@svc/web-push";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { type PushRoutes, signedPushRequest } from "./context.js";

/**
 * POST /v1/push/subscriptions. Checks in order: per-IP limit (429), size (413), schema (400),
 * address (400), signature by the bound inbox key (401), freshness (401), keys and expiry (400),
 * endpoint policy (400), count (409). The same endpoint again renews its keys.
 */
export function registerSubscribeRoute(app: Hono<AppEnv>, routes: PushRoutes): void {
  const { services, subscriptions } = routes;
  const { allowPrivateEndpoints } = services.config.push;
  app.on(ROUTES.pushSubscribe.method, routePattern(ROUTES.pushSubscribe), async (c) => {
    const { request, address } = await signedPushRequest(c, routes, PushSubscribeBody);
    const { endpoint, keys, expirationTime } = request.subscription;
    const now = services.now();
    let decoded: SubscriptionKeys;
    try {
      decoded = decodeSubscriptionKeys(keys.p256dh, keys.auth);
    } catch (error) {
      return refusal("SVC_INVALID_PUSH_SUBSCRIPTION")(error);
    }
    if (expirationTime != null && expirationTime <= now) {
      throw new SvcError("SVC_INVALID_PUSH_SUBSCRIPTION", "expirationTime has passed");
    }
    await checkEndpoint(endpoint, { allowPrivate: allowPrivateEndpoints }).catch(
      refusal("SVC_PUSH_ENDPOINT_REFUSED"),
    );
    const change = await subscriptions.subscribe(
      address,
      { endpoint, ...decoded, expiresAt: expirationTime ?? null },
      { now, max: LIMITS.pushSubscriptionsPerAddress },
    );
    services.metrics.pushSubscriptionChanges.inc({ change });
    return c.json({ ok: true });
  });
}

/** A PushError becomes the route's 400 `code`, with the same message (a stable reason). */
function refusal(code: "SVC_INVALID_PUSH_SUBSCRIPTION" | "SVC_PUSH_ENDPOINT_REFUSED") {
  return (error: unknown): never => {
    if (error instanceof PushError) throw new SvcError(code, error.message);
    throw error;
  };
}
