import type { InboxStore } from "@svc/inbox";
import type { PushSubscriptions } from "@svc/push";
import type { VapidKeys } from "@svc/web-push";
import type { Services } from "../../../services.js";

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
