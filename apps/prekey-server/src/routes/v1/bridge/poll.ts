import { parseBridgeQuery, queryParam } from "@svc/http";
import { LIMITS, parseSafeDecimal, ROUTES, routePattern } from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { type BridgeRoutes, countConnection, verifyBridgeQuery } from "./context.js";
import { envelopeJson } from "./stream.js";

/** GET /v1/bridge/poll: pending envelopes at once, else whatever arrives within timeoutMs. */
export function registerBridgePoll(app: Hono<AppEnv>, routes: BridgeRoutes): void {
  const { services, hub } = routes;
  app.on(ROUTES.bridgePoll.method, routePattern(ROUTES.bridgePoll), async (c) => {
    const query = parseBridgeQuery(c, "poll");
    const timeoutText = queryParam(c, "timeoutMs", false);
    const timeoutMs =
      timeoutText === undefined
        ? LIMITS.pollTimeoutMs.default
        : Math.min(parseSafeDecimal(timeoutText, "timeoutMs"), LIMITS.pollTimeoutMs.max);
    await verifyBridgeQuery(routes, query);
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
