import type { BridgeHub } from "@svc/bridge-hub";
import { createPushSubscriptions, WAKE_DUE_FUNCTION } from "@svc/push";
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
 * address drops its push subscriptions even with push off (they may date from before). With push
 * on, each deposit's statement also says whether a wake-up may be due, so that a deposit with
 * none due costs no statement more than with push off.
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
    depositWakeCheck: push
      ? { sqlFunction: WAKE_DUE_FUNCTION, argument: services.config.push.coalesceMs }
      : undefined,
    unregistered: async (address) => {
      await subscriptions.unsubscribeAll(address);
    },
  });
  const hub = await startBridgeHub(services, inbox, adapter);
  registerBridgeRoutes(app, services, hub, inbox, options);
  if (push) await registerPushRoutes(app, services, { subscriptions, inbox, hub });
  return hub;
}
