import { type DepositNotice, type DepositWakeCheck, InboxStore, startPruner } from "@svc/inbox";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import type { Services } from "../../../services.js";
import { registerInboxAck } from "./ack.js";
import { registerInboxDeposit } from "./deposit.js";
import { registerInboxDepositBatch } from "./deposit-batch.js";
import { registerInboxFetch } from "./fetch.js";
import { registerInboxRegister } from "./register.js";
import { registerInboxUnregister } from "./unregister.js";

/** What else an address's fetch and unregister touch (its push subscriptions). */
export interface InboxHooks {
  /** Awaited after the address fetched a page. */
  fetched?(address: string): Promise<void>;
  /** Awaited after the address was unregistered. */
  unregistered?(address: string): Promise<void>;
  /** Asked by each deposit's own statement: whether a push wake-up may be due. */
  depositWakeCheck?: DepositWakeCheck;
}

/**
 * Mounts the inbox relay routes, its readiness probe and its expiry pruner. Returns the store, so
 * that bridges can read backlogs, bound keys and deposit events from it. `depositNotice`: the
 * NOTIFY each deposit transaction sends for the bridge hubs of other instances.
 */
export function registerInboxRoutes(
  app: Hono<AppEnv>,
  services: Services,
  depositNotice?: DepositNotice,
  hooks: InboxHooks = {},
): InboxStore {
  const { quota, minTtlMs, maxTtlMs, pruneIntervalMs } = services.config.inbox;
  const store = new InboxStore({
    db: services.storage.db,
    now: services.now,
    quota,
    minTtlMs,
    maxTtlMs,
    depositConcurrency: services.storage.batchConcurrency,
    depositNotice,
    depositWakeCheck: hooks.depositWakeCheck,
    onListenerError: (error) =>
      services.logger.warn("inbox deposit listener failed", { error: errorName(error) }),
  });

  services.readiness.set("inbox", async () => {
    await store.ping();
    return true;
  });
  const stopPruner = startPruner(store, {
    intervalMs: pruneIntervalMs,
    onCycle(pruned) {
      services.metrics.pruneCycles.inc();
      services.metrics.blobsPruned.inc(pruned);
      services.events.emit("inbox.pruned", { blobs: pruned, at: services.now() });
    },
    onError: (error) => services.logger.warn("inbox prune failed", { error: errorName(error) }),
  });
  services.onClose(stopPruner);

  // Literal paths first: /v1/inbox/register is not a deposit to an address named "register".
  registerInboxRegister(app, services, store);
  registerInboxUnregister(app, services, store, hooks);
  registerInboxFetch(app, services, store, hooks);
  registerInboxDeposit(app, services, store);
  registerInboxDepositBatch(app, services, store);
  registerInboxAck(app, services, store);
  return store;
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "unknown";
}
