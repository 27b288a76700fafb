import type { BridgeHub } from "@svc/bridge-hub";
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

/**
 * The inbox relay and its bridges. The hub's adapter comes first: on PostgreSQL each deposit
 * transaction sends the adapter's deposit notice itself, so other instances hear of a deposit at
 * its commit, without a statement of its own.
 */
export async function registerRelayRoutes(
  app: Hono<AppEnv>,
  services: Services,
  options: BridgeRouteOptions = {},
): Promise<BridgeHub> {
  const adapter = bridgeAdapter(services);
  const inbox = registerInboxRoutes(app, services, adapter.depositNotice);
  const hub = await startBridgeHub(services, inbox, adapter);
  registerBridgeRoutes(app, services, hub, inbox, options);
  return hub;
}
