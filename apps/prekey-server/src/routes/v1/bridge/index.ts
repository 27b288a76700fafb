import { type BridgeAdapter, BridgeHub, inProcessAdapter, postgresAdapter } from "@svc/bridge-hub";
import { PingTicker } from "@svc/http";
import type { Hono } from "hono";
import { Gauge } from "prom-client";
import type { AppEnv } from "../../../app-env.js";
import type { Services } from "../../../services.js";
import type { BridgeInbox } from "./inbox.js";
import { registerBridgePoll } from "./poll.js";
import { registerBridgePresence } from "./presence.js";
import { registerBridgeStream } from "./stream.js";
import { registerBridgeWs } from "./ws.js";

export type { BridgeInbox } from "./inbox.js";

export interface BridgeRouteOptions {
  /** SSE `: ping` comments and WebSocket pings (default 15 s). */
  pingIntervalMs?: number;
}

/**
 * How this instance's hub meets the others: in-process on embedded PGlite, LISTEN/NOTIFY plus
 * the presence table on PostgreSQL (several instances may share the database).
 */
export function bridgeAdapter(services: Services): BridgeAdapter {
  return services.storage.kind === "postgres"
    ? postgresAdapter(services.storage, {
        instanceExpiryMs: services.config.inbox.presenceExpiryMs,
      })
    : inProcessAdapter();
}

/** The hub of this instance; emits the presence server events and closes with the app. */
export async function startBridgeHub(
  services: Services,
  inbox: BridgeInbox,
  adapter: BridgeAdapter,
): Promise<BridgeHub> {
  const hub = new BridgeHub({
    source: inbox,
    adapter,
    now: services.now,
    heartbeatMs: services.config.inbox.presenceHeartbeatMs,
    onCrossing: ({ address, online, at }) =>
      services.events.emit(online ? "inbox.peer_connected" : "inbox.peer_disconnected", {
        address,
        at,
      }),
    onError: (error, during) =>
      services.logger.warn("bridge hub failure", {
        during,
        error: error instanceof Error ? error.name : "unknown",
      }),
  });
  await hub.start();
  exportUnsentBytes(services, hub);
  const unsubscribe = inbox.onDeposit((deposit) => hub.depositCommitted(deposit));
  services.onClose(async () => {
    unsubscribe();
    await hub.close();
  });
  return hub;
}

/** Mounts /v1/bridge/{stream,poll,ws,presence}. */
export function registerBridgeRoutes(
  app: Hono<AppEnv>,
  services: Services,
  hub: BridgeHub,
  inbox: BridgeInbox,
  options: BridgeRouteOptions = {},
): void {
  const routes = { services, hub, inbox, pings: new PingTicker(options.pingIntervalMs) };
  registerBridgeStream(app, routes);
  registerBridgePoll(app, routes);
  registerBridgeWs(app, routes);
  registerBridgePresence(app, routes);
}

/**
 * svc_bridge_unsent_bytes and svc_bridge_unsent_bytes_max, read from the hub at each scrape: what
 * slow clients hold in this process (each connection at most 1 MiB and one envelope).
 */
function exportUnsentBytes(services: Services, hub: BridgeHub): void {
  const registers = [services.metrics.registry];
  new Gauge({
    name: "svc_bridge_unsent_bytes",
    help: "Bytes written to push bridges and presence feeds that their clients have not taken yet",
    registers,
    collect() {
      this.set(hub.unsentBytes().total);
    },
  });
  new Gauge({
    name: "svc_bridge_unsent_bytes_max",
    help: "Unsent bytes of the one push bridge or presence feed holding the most",
    registers,
    collect() {
      this.set(hub.unsentBytes().largest);
    },
  });
}
