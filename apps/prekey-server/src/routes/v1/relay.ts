import type { BridgeHub } from "@svc/bridge-hub";
import { createPushSubscriptions } from "@svc/push";
import type { Hono } from "hono";
import type { AppEnv } from "../../app-env.js";
import type { Services } from "../../services.js";
import {
  type BridgeRouteOptions,
  bridgeAdapter,
  registerBridgeRoutes,
  startBridgeHub,
} from "./bridge/index.js";
import { registerInboxRoutes } from "./inbox/index.js";
import { registerPushRoutes } from "./push/index.js";

/**
 * The inbox relay, its bridges and its Web Push wake-ups. The hub's adapter comes first: on
 * PostgreSQL each deposit transaction sends the adapter's deposit notice itself, so other
 * instances hear of a deposit at its commit, without a statement of its own. Unregistering an
 * address drops its push subscriptions even with push off (they may date from before).
 */
export async function registerRelayRoutes(
  app: Hono<AppEnv>,
  services: Services,
  options: BridgeRouteOptions = {},
): Promise<BridgeHub> {
  const adapter = bridgeAdapter(services);
  const push = services.config.push.enabled;
  const subscriptions = createPushSubscriptions(services.storage.db);
  const inbox = registerInboxRoutes(app, services, adapter.depositNotice, {
    fetched: push ? (address) => subscriptions.fetched(address) : undefined,
    unregistered: async (address) => {
      await subscriptions.unsubscribeAll(address);
    },
  });
  const hub = await startBridgeHub(services, inbox, adapter);
  registerBridgeRoutes(app, services, hub, inbox, options);
  if (push) await registerPushRoutes(app, services, { subscriptions, inbox, hub });
  return hub;
}
