import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { type BridgeRoutes, countConnection } from "./context.js";
import { decimal, param, parseBridgeQuery, verifySignedQuery } from "./query.js";
import { envelopeJson } from "./stream.js";

export const DEFAULT_POLL_TIMEOUT_MS = 25_000;
export const MAX_POLL_TIMEOUT_MS = 55_000;

/** GET /v1/bridge/poll: pending envelopes at once, else whatever arrives within timeoutMs. */
export function registerBridgePoll(app: Hono<AppEnv>, routes: BridgeRoutes): void {
  const { services, hub, inbox } = routes;
  app.get("/v1/bridge/poll", async (c) => {
    const query = parseBridgeQuery(c, "poll");
    const timeoutText = param(c, "timeoutMs", false);
    const timeoutMs =
      timeoutText === undefined
        ? DEFAULT_POLL_TIMEOUT_MS
        : Math.min(decimal(timeoutText, "timeoutMs"), MAX_POLL_TIMEOUT_MS);
    await verifySignedQuery(services, inbox, query);
    const uncount = countConnection(services, "poll");
    try {
      const batch = await hub.poll(query.address, query.since, timeoutMs, c.req.raw.signal);
      services.metrics.envelopesDelivered.inc({ transport: "poll" }, batch.length);
      return c.json({ envelopes: batch.map(envelopeJson) });
    } finally {
      uncount();
    }
  });
}
