import type { BridgeHub } from "@svc/bridge-hub";
import type { InboxStore } from "@svc/inbox";
import { type PushSubscriptions, WakeUpDispatcher } from "@svc/push";
import { type SendOptions, sendWebPush, type VapidKeys } from "@svc/web-push";
import type { Services } from "../../../services.js";

/** The Topic of every wake-up: a push service keeps only the latest one of a subscription. */
export const WAKE_UP_TOPIC = "svc-wake";
/** Most a closing server waits for the wake-up requests in flight. */
const CLOSE_WAIT_MS = 2000;
/** How long the subscriptions gauge keeps a count read from the database. */
const GAUGE_CACHE_MS = 5000;

export interface WakeUpSources {
  subscriptions: PushSubscriptions;
  inbox: Pick<InboxStore, "onDeposit" | "pending">;
  hub: Pick<BridgeHub, "liveAmong" | "closed">;
  vapid: VapidKeys;
  /** Whether a deposit may wake its address, when the deposit's statement does not say it. */
  wakeUpDue?: ((address: string, now: number) => boolean | null) | undefined;
}

/**
 * Wakes an address's subscriptions after each deposit this instance commits, off the request
 * path (a deposit's answer never waits for it). Stops with the app: wake-ups not yet sent are
 * dropped, and a retry's wait ends the send.
 */
export function startWakeUps(services: Services, sources: WakeUpSources): WakeUpDispatcher {
  const { config, metrics, logger } = services;
  let closed = false;
  const sleeps = new Set<() => void>();
  const warnOfFailure = (error: unknown) =>
    logger.warn("push wake-up failed", { error: error instanceof Error ? error.name : "unknown" });
  const options: SendOptions = {
    vapid: sources.vapid,
    subject: config.push.contact,
    allowPrivate: config.push.allowPrivateEndpoints,
    topic: WAKE_UP_TOPIC,
    // A closing server abandons the retry: the send's promise is left unsettled, holding nothing.
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        if (closed) return;
        const timer = setTimeout(() => {
          sleeps.delete(stop);
          resolve();
        }, ms);
        const stop = () => clearTimeout(timer);
        sleeps.add(stop);
      }),
  };
  const dispatcher = new WakeUpDispatcher({
    subscriptions: sources.subscriptions,
    liveAmong: (addresses) => sources.hub.liveAmong(addresses),
    pending: (addresses) => sources.inbox.pending(addresses),
    send: (target, plaintext) => sendWebPush(target, plaintext, options),
    coalesceMs: config.push.coalesceMs,
    now: services.now,
    onOutcome: (outcome, count) => metrics.pushWakeUps.inc({ outcome }, count),
    onError: warnOfFailure,
  });
  // The deposit's own statement (WAKE_DUE_FUNCTION) or the instance's memory says whether a
  // wake-up may be due: null, the address has no subscription; false, none is due, the deposit is
  // coalesced (counted once, as nothing was read to count its subscriptions). Without an answer,
  // the dispatcher asks.
  const unsubscribe = sources.inbox.onDeposit(({ address, wakeUpDue }) => {
    const due = wakeUpDue !== undefined ? wakeUpDue : sources.wakeUpDue?.(address, services.now());
    if (due === false) metrics.pushWakeUps.inc({ outcome: "coalesced" });
    else if (due !== null) dispatcher.depositCommitted(address);
  });
  // A bridge that was live when a deposit came may have belonged to an app already closing: the
  // envelope reached no one and nothing woke the address. So when an address's last bridge closes
  // (on one instance, cluster-wide) with blobs still queued for it, it is woken as after a deposit.
  const offDisconnect = services.events.on("inbox.peer_disconnected", ({ address }) => {
    if (sources.hub.closed) return;
    sources.inbox.pending([address]).then((pending) => {
      if ((pending.get(address) ?? 0) > 0) dispatcher.depositCommitted(address);
    }, warnOfFailure);
  });
  metrics.pushSubscriptions.sampleWith(cached(() => sources.subscriptions.count(), GAUGE_CACHE_MS));
  services.onClose(async () => {
    unsubscribe();
    offDisconnect();
    closed = true;
    for (const stop of sleeps) stop();
    sleeps.clear();
    await dispatcher.close(CLOSE_WAIT_MS);
  });
  return dispatcher;
}

/** `read`, answered from its last result for `ms` after each read. */
function cached(read: () => Promise<number>, ms: number): () => Promise<number> {
  let last: { value: number; at: number } | undefined;
  return async () => {
    const now = Date.now();
    if (last !== undefined && now - last.at < ms) return last.value;
    last = { value: await read(), at: now };
    return last.value;
  };
}
