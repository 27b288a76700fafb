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
const ADDRESSES = ["a@example.org", "b@example.org", "c@example.org"];
const keys = { p256dh: new Uint8Array(65).fill(4), auth: new Uint8Array(16).fill(1) };

/**
 * A new database of `kind` and the instance's memory over its subscriptions, as `wrap` hands
 * them over (a test's hooks around the stored ones).
 */
async function remembered(
  kind: (typeof kinds)[number],
  wrap: (stored: PushSubscriptions) => PushSubscriptions = (stored) => stored,
) {
  const storage = await createTestStorage({ kind, migrations: [pushMigrations] });
  opened.push(storage);
  const memory = await rememberWakeDue(
    storage.db,
    wrap(createPushSubscriptions(storage.db)),
    COALESCE_MS,
  );
  return { storage, memory, subs: memory.subscriptions };
}

/** A subscription at push endpoint `n` that never expires unless told. */
const subscription = (n: number | string, expiresAt: number | null = null) => ({
  endpoint: `https://push.example.net/${n}`,
  ...keys,
  expiresAt,
});

/** What svc_push_wake_due answers for `address` at `at`. */
async function dueInSql(storage: Storage, address: string, at: number) {
  const [row] = await executeRows<{ due: boolean | null }>(
    storage.db,
    sql`select ${sql.raw(WAKE_DUE_FUNCTION)}(${address}, ${at}::bigint, ${COALESCE_MS}::bigint) as due`,
  );
  return row?.due;
}

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
    // Every change goes through the remembering store, whose memory must then agree with the
    // function, as must a memory loaded afterwards from the table.
    const { storage, memory, subs } = await remembered(kind);
    await subs.subscribe("bob@example.org", subscription("bob"), { now: 0, max: 8 });
    await arrange(subs, (n, expiresAt) =>
      subs.subscribe(ALICE, subscription(n, expiresAt), { now: 0, max: 8 }).then(() => {}),
    );
    expect(await dueInSql(storage, ALICE, NOW)).toBe(due);
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

/** A small deterministic generator (mulberry32), so that a failing sequence can be replayed. */
function random(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

describe.each(kinds)("the instance's memory of wake-ups due on %s", (kind) => {
  it("answers as svc_push_wake_due does after every change of a random sequence", async () => {
    const { storage, memory, subs } = await remembered(kind);
    const pick = random(20261129);
    let now = 10_000;
    const steps: string[] = [];
    for (let step = 0; step < 150; step++) {
      const address = ADDRESSES[pick(ADDRESSES.length)] as string;
      const n = pick(3);
      const { endpoint } = subscription(n);
      const op = pick(7);
      if (op === 0) {
        const expiresAt = pick(4) === 0 ? now + pick(3 * COALESCE_MS) : null;
        await subs.subscribe(address, subscription(n, expiresAt), { now, max: 8 });
        steps.push(`subscribe ${address} ${endpoint} ${expiresAt}`);
      } else if (op === 1) {
        await subs.unsubscribe(address, endpoint);
        steps.push(`unsubscribe ${address} ${endpoint}`);
      } else if (op === 2 && pick(4) === 0) {
        await subs.unsubscribeAll(address);
        steps.push(`unsubscribeAll ${address}`);
      } else if (op === 3 || op === 4) {
        const claimed = ADDRESSES.filter(() => pick(2) === 0);
        await subs.claim(claimed, now, COALESCE_MS);
        steps.push(`claim ${claimed.join(",")}`);
      } else if (op === 5) {
        await subs.fetched(address);
        steps.push(`fetched ${address}`);
      } else {
        now += pick(COALESCE_MS);
        steps.push(`now ${now}`);
      }
      for (const at of [now, now + COALESCE_MS - 1, now + COALESCE_MS]) {
        for (const checked of ADDRESSES) {
          const due = await dueInSql(storage, checked, at);
          expect(
            { due: memory.wakeUpDue(checked, at), checked, at, steps },
            `${checked} at ${at} after: ${steps.join("; ")}`,
          ).toEqual({ due, checked, at, steps });
        }
      }
    }
    // The sequence went through every kind of state.
    expect(steps.some((s) => s.startsWith("claim"))).toBe(true);
    expect(steps.some((s) => s.startsWith("unsubscribeAll"))).toBe(true);
  }, 120_000);

  it("keeps a fetch that lands while a claim's reread is under way", async () => {
    // The claim's reread reads before the fetch and answers after it, as two connections of a
    // pool may.
    let release = () => {};
    let reading: Promise<void> | undefined;
    const { memory } = await remembered(kind, (stored) => ({
      ...stored,
      async ofAddresses(addresses) {
        const rows = await stored.ofAddresses(addresses);
        if (reading === undefined) return rows;
        await reading;
        return rows;
      },
    }));
    const address = ADDRESSES[0] as string;
    await memory.subscriptions.subscribe(address, subscription(1), { now: 0, max: 8 });
    reading = new Promise((resolve) => {
      release = resolve;
    });
    const claim = memory.subscriptions.claim([address], 5000, COALESCE_MS);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await memory.subscriptions.fetched(address);
    expect(memory.wakeUpDue(address, 5001)).toBe(true);
    release();
    await claim;
    expect(memory.wakeUpDue(address, 5001)).toBe(true);
  });

  it("resets on a fetch only the addresses that have subscriptions", async () => {
    const reset: string[] = [];
    const { memory } = await remembered(kind, (stored) => ({
      ...stored,
      fetched: (address) => {
        reset.push(address);
        return stored.fetched(address);
      },
    }));
    await memory.subscriptions.subscribe(ALICE, subscription(1), { now: 0, max: 8 });
    await memory.subscriptions.claim([ALICE], NOW, COALESCE_MS);
    await memory.subscriptions.fetched("nobody@example.org");
    await memory.subscriptions.fetched(ALICE);
    expect(reset).toEqual([ALICE]);
    expect(memory.wakeUpDue(ALICE, NOW + 1)).toBe(true);
  });
});
