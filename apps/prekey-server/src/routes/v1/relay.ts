import type { BridgeHub } from "@svc/bridge-hub";
import { createPushSubscriptions, rememberWakeDue, WAKE_DUE_FUNCTION } from "@svc/push";
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
 * on, whether a deposit may wake its address costs no statement of its own: on PostgreSQL the
 * deposit's statement says it, on the embedded database (which only this instance writes) the
 * instance knows it from memory and the deposit runs push off's statement.
 */
export async function registerRelayRoutes(
  app: Hono<AppEnv>,
  services: Services,
  options: BridgeRouteOptions = {},
): Promise<BridgeHub> {
  const adapter = bridgeAdapter(services);
  const push = services.config.push.enabled;
  const { db, kind } = services.storage;
  const { coalesceMs } = services.config.push;
  const stored = createPushSubscriptions(db);
  const memory =
    push && kind === "pglite" ? await rememberWakeDue(db, stored, coalesceMs) : undefined;
  const subscriptions = memory?.subscriptions ?? stored;
  const inbox = registerInboxRoutes(app, services, adapter.depositNotice, {
    fetched: push ? (address) => subscriptions.fetched(address) : undefined,
    depositWakeCheck:
      push && memory === undefined
        ? { sqlFunction: WAKE_DUE_FUNCTION, argument: coalesceMs }
        : undefined,
    unregistered: async (address) => {
      await subscriptions.unsubscribeAll(address);
    },
  });
  const hub = await startBridgeHub(services, inbox, adapter);
  registerBridgeRoutes(app, services, hub, inbox, options);
  if (push) {
    await registerPushRoutes(app, services, {
      subscriptions,
      inbox,
      hub,
      wakeUpDue: memory?.wakeUpDue,
    });
  }
  return hub;
}
