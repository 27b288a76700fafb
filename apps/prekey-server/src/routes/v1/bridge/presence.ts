import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { alreadySent, nodeResponse } from "../../../http/node-bindings.js";
import { type BridgeRoutes, countConnection, requireOpen } from "./context.js";
import { EventStream } from "./event-stream.js";
import { parsePresenceQuery, verifySignedQuery } from "./query.js";

/**
 * GET /v1/bridge/presence: one `presence` event per watched address, then
 * `inbox.peer_connected` / `inbox.peer_disconnected` events of watched addresses only. The
 * watcher must be inbox-registered; its feed does not count as a bridge.
 */
export function registerBridgePresence(app: Hono<AppEnv>, routes: BridgeRoutes): void {
  const { services, hub, inbox, pings } = routes;
  app.get("/v1/bridge/presence", async (c) => {
    const query = parsePresenceQuery(c);
    await verifySignedQuery(services, inbox, query);
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
      end: (reason) => stream.end(reason),
    });
    return alreadySent();
  });
}
