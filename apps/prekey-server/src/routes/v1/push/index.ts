import type { BridgeHub } from "@svc/bridge-hub";
import type { InboxStore } from "@svc/inbox";
import type { PushSubscriptions, WakeUpDispatcher } from "@svc/push";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { loadVapidKeys } from "../../../push-vapid-key.js";
import type { Services } from "../../../services.js";
import { createPushRateLimits } from "./context.js";
import { registerSubscribeRoute } from "./subscribe.js";
import { registerUnsubscribeRoute } from "./unsubscribe.js";
import { registerVapidRoute } from "./vapid.js";
import { startWakeUps, type WakeUpSources } from "./wake-ups.js";

/**
 * Mounts /v1/push/{vapid,subscriptions} and starts the wake-ups of this instance's deposits.
 * Without SVC_PUSH_CONTACT the VAPID JWT has no `sub`, which some push services refuse: said once.
 */
export async function registerPushRoutes(
  app: Hono<AppEnv>,
  services: Services,
  sources: {
    subscriptions: PushSubscriptions;
    inbox: InboxStore;
    hub: BridgeHub;
    wakeUpDue?: WakeUpSources["wakeUpDue"];
  },
): Promise<WakeUpDispatcher> {
  const vapid = await loadVapidKeys(services.config);
  if (services.config.push.contact === undefined) {
    services.logger.warn(
      "SVC_PUSH_CONTACT is not set: wake-ups carry no VAPID subject, and some push services (Apple's) refuse them",
    );
  }
  const routes = {
    services,
    subscriptions: sources.subscriptions,
    inbox: sources.inbox,
    vapid,
    limits: createPushRateLimits(services),
  };
  registerVapidRoute(app, routes);
  registerSubscribeRoute(app, routes);
  registerUnsubscribeRoute(app, routes);
  return startWakeUps(services, { ...sources, vapid });
}
