import type { Database } from "@svc/db";
import { pushSubscriptions } from "./schema.js";
import type { PushSubscriptions } from "./subscriptions.js";

type WakeRow = Pick<typeof pushSubscriptions.$inferSelect, "address" | "wokenAt" | "expiresAt">;

/**
 * What svc_push_wake_due answers from the table, answered from memory: for a database that only
 * this instance writes (the embedded one, whose data directory one process holds), so that a
 * deposit's statement need not run the check on the database's one thread.
 *
 * `subscriptions` is the store to use in its place: every change goes through it and then
 * updates the memory. Each address keeps the time from which a deposit may wake it: the earliest,
 * over its subscriptions, of woken_at + coalesceMs (0 when not woken since the last fetch) and
 * expires_at (an expired one is due, so that the dispatcher's claim deletes it).
 */
export interface WakeDueMemory {
  subscriptions: PushSubscriptions;
  /** null: no subscription; false: every one woken within the interval; true: one may be due. */
  wakeUpDue(address: string, now: number): boolean | null;
}

export async function rememberWakeDue(
  db: Database,
  subscriptions: PushSubscriptions,
  coalesceMs: number,
): Promise<WakeDueMemory> {
  const dueFrom = new Map<string, number>();
  // A reread of an address counts the changes that make it due at once (a subscribe, a fetch,
  // an unsubscribe of all) made while it reads: after any, its older view is not put back. Only
  // addresses being reread are counted, so nothing here grows with the addresses served.
  const rereading = new Map<string, { readers: number; changes: number }>();
  const changed = (address: string) => {
    const watch = rereading.get(address);
    if (watch !== undefined) watch.changes++;
  };

  const remember = (rows: readonly WakeRow[], addresses: Iterable<string>) => {
    for (const address of addresses) dueFrom.delete(address);
    for (const row of rows) {
      const from = Math.min(
        row.wokenAt === null ? 0 : row.wokenAt + coalesceMs,
        row.expiresAt ?? Number.POSITIVE_INFINITY,
      );
      dueFrom.set(row.address, Math.min(from, dueFrom.get(row.address) ?? from));
    }
  };
  const reread = async (addresses: readonly string[]) => {
    const watches = addresses.map((address) => {
      const watch = rereading.get(address) ?? { readers: 0, changes: 0 };
      watch.readers++;
      rereading.set(address, watch);
      return { address, watch, changesBefore: watch.changes };
    });
    try {
      const rows = await subscriptions.ofAddresses(addresses);
      const unchanged = new Set(
        watches.filter((w) => w.watch.changes === w.changesBefore).map((w) => w.address),
      );
      remember(
        rows.filter((row) => unchanged.has(row.address)),
        unchanged,
      );
    } finally {
      for (const { address, watch } of watches) {
        if (--watch.readers === 0) rereading.delete(address);
      }
    }
  };

  remember(
    await db
      .select({
        address: pushSubscriptions.address,
        wokenAt: pushSubscriptions.wokenAt,
        expiresAt: pushSubscriptions.expiresAt,
      })
      .from(pushSubscriptions),
    [],
  );

  const remembering: PushSubscriptions = {
    ...subscriptions,
    async subscribe(address, subscription, options) {
      const outcome = await subscriptions.subscribe(address, subscription, options);
      changed(address);
      dueFrom.set(address, 0);
      return outcome;
    },
    async unsubscribe(address, endpoint) {
      const removed = await subscriptions.unsubscribe(address, endpoint);
      if (removed) await reread([address]);
      return removed;
    },
    async unsubscribeAll(address) {
      const removed = await subscriptions.unsubscribeAll(address);
      changed(address);
      dueFrom.delete(address);
      return removed;
    },
    async claim(addresses, now, claimCoalesceMs) {
      const claim = await subscriptions.claim(addresses, now, claimCoalesceMs);
      await reread(addresses);
      return claim;
    },
    async fetched(address) {
      // Every subscription of the database is remembered: an address with none (most of those
      // that fetch) has nothing to reset, and costs no statement.
      if (!dueFrom.has(address)) return;
      await subscriptions.fetched(address);
      changed(address);
      if (dueFrom.has(address)) dueFrom.set(address, 0);
    },
  };

  return {
    subscriptions: remembering,
    wakeUpDue(address, now) {
      const from = dueFrom.get(address);
      return from === undefined ? null : now >= from;
    },
  };
}
