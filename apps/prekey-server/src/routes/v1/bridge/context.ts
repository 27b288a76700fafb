import type { BridgeHub } from "@svc/bridge-hub";
import { type PingTicker, type SignedQuery, verifySignedQuery } from "@svc/http";
import { SvcError } from "@svc/protocol";
import type { Services } from "../../../services.js";
import type { BridgeInbox } from "./inbox.js";

/** What every bridge route is wired with. */
export interface BridgeRoutes {
  services: Services;
  hub: BridgeHub;
  inbox: BridgeInbox;
  pings: PingTicker;
}

/** Metric label of each route's transport. */
export type TransportLabel = "sse" | "ws" | "poll" | "presence";

/** Counts a connection in the bridge metrics; the returned function counts it gone. */
export function countConnection(services: Services, transport: TransportLabel): () => void {
  services.metrics.bridgeConnects.inc({ transport });
  services.metrics.bridgesLive.inc({ transport });
  let counted = true;
  return () => {
    if (counted) services.metrics.bridgesLive.dec({ transport });
    counted = false;
  };
}

/** A bridge opened while the app shuts down would be ended at once: refuse it instead. */
export function requireOpen(hub: BridgeHub): void {
  if (hub.closed) throw new SvcError("SVC_UNAVAILABLE", "the server is shutting down");
}

/** Checks a signed query against the key its address is bound to by inbox registration. */
export async function verifyBridgeQuery(routes: BridgeRoutes, query: SignedQuery): Promise<void> {
  const boundKey = await routes.inbox.bindingKey(query.address);
  verifySignedQuery(routes.services.verifier, boundKey, query, routes.services.now());
}
