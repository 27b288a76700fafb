import type { BridgeEnvelope } from "@svc/bridge-hub";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { alreadySent, nodeResponse } from "../../../http/node-bindings.js";
import { type BridgeRoutes, countConnection, requireOpen } from "./context.js";
import { EventStream } from "./event-stream.js";
import { parseBridgeQuery, verifySignedQuery } from "./query.js";

const LAST_EVENT_ID = /^(0|[1-9][0-9]{0,15})$/;

/** GET /v1/bridge/stream: envelopes as SSE `envelope` events, `id:` = receivedAt. */
export function registerBridgeStream(app: Hono<AppEnv>, routes: BridgeRoutes): void {
  const { services, hub, inbox, pings } = routes;
  app.get("/v1/bridge/stream", async (c) => {
    const query = parseBridgeQuery(c, "stream");
    await verifySignedQuery(services, inbox, query);
    requireOpen(hub);
    const res = nodeResponse(c);
    const since = resumeCursor(c.req.header("last-event-id")) ?? query.since;
    const uncount = countConnection(services, "sse");
    let handle: { close(): void } | undefined;
    const stream = new EventStream(res, pings, c.get("requestId"), () => {
      uncount();
      handle?.close();
    });
    handle = hub.openBridge({
      address: query.address,
      since,
      transport: "sse",
      sink: {
        send(envelope) {
          stream.event("envelope", envelopeJson(envelope), envelope.receivedAt);
          services.metrics.envelopesDelivered.inc({ transport: "sse" });
        },
        unsentBytes: () => stream.unsentBytes(),
        end: (reason) => stream.end(reason),
      },
    });
    return alreadySent();
  });
}

/** D7: a valid `Last-Event-ID` (a receivedAt) replaces `since`; anything else is ignored. */
function resumeCursor(header: string | undefined): number | undefined {
  if (header === undefined || !LAST_EVENT_ID.test(header)) return undefined;
  const value = Number(header);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** The envelope members of the wire format, in a fixed order. */
export function envelopeJson(envelope: BridgeEnvelope): BridgeEnvelope {
  const { from, bytes, receivedAt, msgId } = envelope;
  return { from, bytes, receivedAt, msgId };
}
