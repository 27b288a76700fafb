import { PushSubscriptionJson, type PushSubscriptionWire } from "@svc/protocol";
import * as v from "valibot";

/**
 * A subscription as a browser's PushSubscription.toJSON() or a UnifiedPush distributor gives it,
 * checked against the protocol's schema before anything is signed or sent: a TypeError saying
 * which member is wrong. The server checks more (a P-256 point, a 16-byte secret, its endpoint
 * policy) and answers 400 with a code.
 */
export function pushSubscriptionArgument(subscription: unknown): PushSubscriptionWire {
  const parsed = v.safeParse(PushSubscriptionJson, subscription);
  if (!parsed.success) throw new TypeError(`subscription: ${parsed.issues[0].message}`);
  return parsed.output;
}

/** A subscription's endpoint URL as unsubscribePush takes it, checked like the subscription's. */
export function pushEndpointArgument(endpoint: unknown): string {
  const parsed = v.safeParse(PushSubscriptionJson.entries.endpoint, endpoint);
  if (!parsed.success) throw new TypeError(parsed.issues[0].message);
  return parsed.output;
}
