import type { BridgeHandle, EndReason } from "@svc/bridge-hub";
import { alreadySent, END_GRACE_MS, nodeUpgrade, parseBridgeQuery } from "@svc/http";
import { badRequest, ROUTES, routePattern } from "@svc/protocol";
import type { Hono } from "hono";
import { type WebSocket, WebSocketServer } from "ws";
import type { AppEnv } from "../../../app-env.js";
import { type BridgeRoutes, countConnection, requireOpen, verifyBridgeQuery } from "./context.js";
import { envelopeJson } from "./stream.js";

/** Close codes by why the server ends a bridge (the client resumes with its cursor). */
const CLOSE_CODES: Record<EndReason, number> = {
  shutdown: 1001, // going away
  behind: 1013, // try again later: the consumer fell more than 1 MiB behind
  error: 1011, // internal error
};

/**
 * GET /v1/bridge/ws: authentication is answered as plain HTTP before the upgrade; after it, one
 * text frame per envelope. Clients send nothing (frames over 4 KiB close the connection).
 */
export function registerBridgeWs(app: Hono<AppEnv>, routes: BridgeRoutes): void {
  const { services, hub, pings } = routes;
  const wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: 4096,
  });

  app.on(ROUTES.bridgeWs.method, routePattern(ROUTES.bridgeWs), async (c) => {
    const query = parseBridgeQuery(c, "ws");
    await verifyBridgeQuery(routes, query);
    requireOpen(hub);
    const upgrade = nodeUpgrade(c);
    if (!upgrade || c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      throw badRequest("this route needs a WebSocket upgrade request");
    }
    const { incoming, socket, head } = upgrade;
    wss.handleUpgrade(incoming, socket, head, (ws) => {
      const uncount = countConnection(services, "ws");
      let alive = true;
      const ping = () => {
        if (!alive) return ws.terminate(); // no pong since the last ping: a dead peer
        alive = false;
        ws.ping();
      };
      ws.on("pong", () => {
        alive = true;
      });
      ws.on("error", () => {}); // the close event follows and does the cleanup
      pings.add(ping);
      const handle: BridgeHandle = hub.openBridge({
        address: query.address,
        since: query.since,
        transport: "ws",
        sink: {
          send(envelope) {
            ws.send(JSON.stringify(envelopeJson(envelope)));
            services.metrics.envelopesDelivered.inc({ transport: "ws" });
          },
          unsentBytes: () => ws.bufferedAmount,
          end: (reason) => closeSoon(ws, CLOSE_CODES[reason]),
        },
      });
      ws.once("close", () => {
        pings.delete(ping);
        uncount();
        handle.close();
      });
    });
    return alreadySent();
  });
}

/** A close handshake, cut short if the peer does not answer it promptly. */
function closeSoon(ws: WebSocket, code: number): void {
  ws.close(code);
  setTimeout(() => ws.terminate(), END_GRACE_MS).unref();
}
