import type { Storage } from "@svc/db";
import { executeRows } from "@svc/db";
import { createTestStorage, hasTestPostgres } from "@svc/db/testing";
import { sql } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { pushMigrations, WAKE_DUE_FUNCTION } from "./schema.js";
import { createPushSubscriptions, type PushSubscriptions } from "./subscriptions.js";
import { rememberWakeDue } from "./wake-due-memory.js";

const opened: Storage[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

beforeAll(async () =>
  (await createTestStorage({ kind: "pglite", migrations: [pushMigrations] })).close(),
);

const kinds = hasTestPostgres() ? (["pglite", "postgres"] as const) : (["pglite"] as const);
const ALICE = "alice@example.org";
const COALESCE_MS = 30_000;
const NOW = 1_000_000;
const keys = { p256dh: new Uint8Array(65).fill(4), auth: new Uint8Array(16).fill(1) };

/** Each state of an address's subscriptions, and whether a deposit now may wake one. */
const CASES: Array<{
  state: string;
  arrange(
    subs: PushSubscriptions,
    subscribe: (n: number, expiresAt?: number) => Promise<void>,
  ): Promise<void>;
  due: boolean | null;
}> = [
  { state: "no subscription", arrange: async () => {}, due: null },
  { state: "never woken", arrange: (_, subscribe) => subscribe(1), due: true },
  {
    state: "woken within the interval",
    arrange: async (subs, subscribe) => {
      await subscribe(1);
      await subs.claim([ALICE], NOW - COALESCE_MS + 1, COALESCE_MS);
    },
    due: false,
  },
  {
    state: "woken exactly the interval ago",
    arrange: async (subs, subscribe) => {
      await subscribe(1);
      await subs.claim([ALICE], NOW - COALESCE_MS, COALESCE_MS);
    },
    due: true,
  },
  {
    state: "woken within the interval, fetched since",
    arrange: async (subs, subscribe) => {
      await subscribe(1);
      await subs.claim([ALICE], NOW - 1, COALESCE_MS);
      await subs.fetched(ALICE);
    },
    due: true,
  },
  {
    state: "expired (to be deleted), though woken within the interval",
    arrange: async (subs, subscribe) => {
      await subscribe(1, NOW);
      await subs.claim([ALICE], NOW - 1, COALESCE_MS);
    },
    due: true,
  },
  {
    state: "expiring later, woken within the interval",
    arrange: async (subs, subscribe) => {
      await subscribe(1, NOW + 1);
      await subs.claim([ALICE], NOW - 1, COALESCE_MS);
    },
    due: false,
  },
  {
    state: "one woken within the interval, one added since",
    arrange: async (subs, subscribe) => {
      await subscribe(1);
      await subs.claim([ALICE], NOW - 1, COALESCE_MS);
      await subscribe(2);
    },
    due: true,
  },
];

describe.each(kinds)("svc_push_wake_due and the instance's memory of it on %s", (kind) => {
  it.each(CASES)("$state: $due", async ({ arrange, due }) => {
    const storage = await createTestStorage({ kind, migrations: [pushMigrations] });
    opened.push(storage);
    // Every change goes through the remembering store, whose memory must then agree with the
    // function, as must a memory loaded afterwards from the table.
    const memory = await rememberWakeDue(
      storage.db,
      createPushSubscriptions(storage.db),
      COALESCE_MS,
    );
    const subs = memory.subscriptions;
    await subs.subscribe(
      "bob@example.org",
      { endpoint: "https://push.example.net/bob", ...keys, expiresAt: null },
      { now: 0, max: 8 },
    );
    await arrange(subs, (n, expiresAt) =>
      subs
        .subscribe(
          ALICE,
          { endpoint: `https://push.example.net/${n}`, ...keys, expiresAt: expiresAt ?? null },
          { now: 0, max: 8 },
        )
        .then(() => {}),
    );
    const [row] = await executeRows<{ due: boolean | null }>(
      storage.db,
      sql`select ${sql.raw(WAKE_DUE_FUNCTION)}(${ALICE}, ${NOW}::bigint, ${COALESCE_MS}::bigint) as due`,
    );
    expect(row?.due).toBe(due);
    expect(memory.wakeUpDue(ALICE, NOW)).toBe(due);
    const loaded = await rememberWakeDue(
      storage.db,
      createPushSubscriptions(storage.db),
      COALESCE_MS,
    );
    expect(loaded.wakeUpDue(ALICE, NOW)).toBe(due);
    // Never false when the dispatcher's claim would wake or delete something.
    const before = (await subs.ofAddresses([ALICE])).length;
    const { claimed, coalesced } = await subs.claim([ALICE], NOW, COALESCE_MS);
    const deleted = before - (await subs.ofAddresses([ALICE])).length;
    expect(claimed.length + deleted > 0).toBe(due === true);
    expect(coalesced).toBe(before - deleted - claimed.length);
    expect(memory.wakeUpDue(ALICE, NOW)).toBe(before - deleted > 0 ? false : null);
  });
});
