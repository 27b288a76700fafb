import type { ServerResponse } from "node:http";
import type { EnvelopeSink } from "@svc/bridge-hub";
import {
  alreadySent,
  EventStream,
  nodeResponse,
  type PingTicker,
  parseBridgeQuery,
} from "@svc/http";
import type { BridgeEnvelope } from "@svc/protocol";
import { ROUTES, routePattern } from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { type BridgeRoutes, countConnection, requireOpen, verifyBridgeQuery } from "./context.js";

const LAST_EVENT_ID = /^(0|[1-9][0-9]{0,15})$/;

/** GET /v1/bridge/stream: envelopes as SSE `envelope` events, `id:` = receivedAt. */
export function registerBridgeStream(app: Hono<AppEnv>, routes: BridgeRoutes): void {
  const { services, hub, pings } = routes;
  const delivered = services.metrics.envelopesDelivered.labels({ transport: "sse" });
  app.on(ROUTES.bridgeStream.method, routePattern(ROUTES.bridgeStream), async (c) => {
    const query = parseBridgeQuery(c, "stream");
    await verifyBridgeQuery(routes, query);
    requireOpen(hub);
    const res = nodeResponse(c);
    const since = resumeCursor(c.req.header("last-event-id")) ?? query.since;
    const uncount = countConnection(services, "sse");
    let handle: { close(): void } | undefined;
    const stream = new EnvelopeStream(res, pings, c.get("requestId"), delivered, () => {
      uncount();
      handle?.close();
    });
    handle = hub.openBridge({ address: query.address, since, transport: "sse", sink: stream });
    return alreadySent();
  });
}

/**
 * The connection of one SSE bridge, itself the hub's sink: an idle bridge holds this object and
 * its socket, not a set of closures around them.
 */
class EnvelopeStream extends EventStream implements EnvelopeSink {
  readonly #delivered: { inc(): void };

  constructor(
    res: ServerResponse,
    pings: PingTicker,
    requestId: string,
    delivered: { inc(): void },
    onClose: () => void,
  ) {
    super(res, pings, requestId, onClose);
    this.#delivered = delivered;
  }

  send(envelope: BridgeEnvelope): void {
    this.event("envelope", envelopeJson(envelope), envelope.receivedAt);
    this.#delivered.inc();
  }
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
