import { normalizeAddress } from "@svc/canonical";
import { clientIp, readJsonBody } from "@svc/http";
import type { InboxStore } from "@svc/inbox";
import { parseRequest, SMALL_BODY_LIMIT } from "@svc/protocol";
import type { PushSubscriptions } from "@svc/push";
import type { VapidKeys } from "@svc/web-push";
import type { Context } from "hono";
import type * as v from "valibot";
import type { Services } from "../../../services.js";
import { authenticateRecipient, requireAddressMember } from "../inbox/recipient.js";

export interface PushRoutes {
  services: Services;
  subscriptions: PushSubscriptions;
  /** Where the address's bound inbox key is read: the push routes are signed with it. */
  inbox: Pick<InboxStore, "bindingKey">;
  vapid: VapidKeys;
  limits: ReturnType<typeof createPushRateLimits>;
}

/**
 * Per-IP limits, per instance: the VAPID key is read as often as bundles are, subscription
 * changes as often as registers happen, each in a bucket of its own.
 */
export function createPushRateLimits(services: Services) {
  const rate = services.config.rateLimit;
  return {
    vapidPerIp: services.rateLimit("/v1/push/vapid", "push_vapid_per_ip", rate.bundlePerIp),
    changePerIp: services.rateLimit(
      "/v1/push/subscriptions",
      "push_subscriptions_per_ip",
      rate.registerPerIp,
    ),
  };
}

/**
 * The checks both subscription routes begin with, in order: per-IP limit (429), size (413),
 * schema (400), address (400), signature by the address's bound inbox key and freshness (401).
 * The request and its normalized address.
 */
export async function signedPushRequest<
  S extends v.GenericSchema<unknown, { address: string; signedAt: number }>,
>(
  c: Context,
  routes: PushRoutes,
  schema: S,
): Promise<{ request: v.InferOutput<S>; address: string }> {
  const { services, inbox, limits } = routes;
  limits.changePerIp.consume(clientIp(c, services.config.trustProxy));
  const body = await readJsonBody(c, SMALL_BODY_LIMIT);
  const request = parseRequest(schema, body);
  requireAddressMember(request.address, "address");
  const address = normalizeAddress(request.address);
  await authenticateRecipient(services, inbox, c, request, address, "other");
  return { request, address };
}
