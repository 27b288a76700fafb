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
  // Bumped by each change that makes an address due at once (a subscribe, a fetch): a reread
  // begun before it must not put back the earlier state.
  const changes = new Map<string, number>();
  const changed = (address: string) => changes.set(address, (changes.get(address) ?? 0) + 1);

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
    const before = addresses.map((address) => changes.get(address) ?? 0);
    const rows = await subscriptions.ofAddresses(addresses);
    const unchanged = addresses.filter((address, i) => (changes.get(address) ?? 0) === before[i]);
    const kept = new Set(unchanged);
    remember(
      rows.filter((row) => kept.has(row.address)),
      unchanged,
    );
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
