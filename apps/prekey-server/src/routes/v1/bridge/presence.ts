import { alreadySent, EventStream, nodeResponse, parsePresenceQuery } from "@svc/http";
import { ROUTES, routePattern } from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { type BridgeRoutes, countConnection, requireOpen, verifyBridgeQuery } from "./context.js";

/**
 * GET /v1/bridge/presence: one `presence` event per watched address, then
 * `inbox.peer_connected` / `inbox.peer_disconnected` events of watched addresses only. The
 * watcher must be inbox-registered; its feed does not count as a bridge.
 */
export function registerBridgePresence(app: Hono<AppEnv>, routes: BridgeRoutes): void {
  const { services, hub, pings } = routes;
  app.on(ROUTES.bridgePresence.method, routePattern(ROUTES.bridgePresence), async (c) => {
    const query = parsePresenceQuery(c);
    await verifyBridgeQuery(routes, query);
    requireOpen(hub);
    const res = nodeResponse(c);
    const uncount = countConnection(services, "presence");
    let handle: { close(): void } | undefined;
    const stream = new EventStream(res, pings, c.get("requestId"), () => {
      uncount();
      handle?.close();
    });
    handle = hub.watchPresence(query.watched, {
      snapshot: ({ address, online, at }) => stream.event("presence", { address, online, at }),
      change: ({ address, online, at }) =>
        stream.event(online ? "inbox.peer_connected" : "inbox.peer_disconnected", {
          address,
          at,
        }),
      unsentBytes: () => stream.unsentBytes(),
      end: () => stream.end(),
    });
    return alreadySent();
  });
}
