import { openStorage, type Storage } from "@svc/db";
import { createTestDatabase, createTestStorage, hasTestPostgres } from "@svc/db/testing";
import type { PushTarget } from "@svc/web-push";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  WakeUpDispatcher,
  type WakeUpDispatcherOptions,
  type WakeUpOutcome,
} from "./dispatcher.js";
import { pushMigrations } from "./schema.js";
import { createPushSubscriptions, type PushSubscriptions } from "./subscriptions.js";

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const closable of opened.splice(0).reverse()) await closable.close();
});

beforeAll(async () =>
  (await createTestStorage({ kind: "pglite", migrations: [pushMigrations] })).close(),
);

const kinds = hasTestPostgres() ? (["pglite", "postgres"] as const) : (["pglite"] as const);
const ALICE = "alice@example.org";
const BOB = "bob@example.org";
const endpoint = (name: string) => `https://push.example.net/${name}`;
const keys = { p256dh: new Uint8Array(65).fill(4), auth: new Uint8Array(16).fill(1) };

type SendResult = "sent" | "gone" | "failed" | "refused";

/** A fake push service: records each request, answers as told (default sent). */
function fakeService() {
  const requests: Array<{ endpoint: string; plaintext: string }> = [];
  const answers = new Map<string, SendResult>();
  let hold: Promise<void> | undefined;
  return {
    requests,
    answers,
    holdUntil(gate: Promise<void>) {
      hold = gate;
    },
    async send(target: PushTarget, plaintext: Uint8Array) {
      requests.push({ endpoint: target.endpoint, plaintext: new TextDecoder().decode(plaintext) });
      if (hold) await hold;
      return { outcome: answers.get(target.endpoint) ?? "sent" };
    },
  };
}

function tally() {
  const counts: Partial<Record<WakeUpOutcome, number>> = {};
  return {
    counts,
    onOutcome: (outcome: WakeUpOutcome, n: number) => {
      counts[outcome] = (counts[outcome] ?? 0) + n;
    },
  };
}

describe.each(kinds)("the wake-up dispatcher on %s", (kind) => {
  async function setUp(options: Partial<WakeUpDispatcherOptions> = {}) {
    const storage = await createTestStorage({ kind, migrations: [pushMigrations] });
    opened.push(storage);
    const subscriptions = createPushSubscriptions(storage.db);
    const service = fakeService();
    const counted = tally();
    const live = new Set<string>();
    const errors: unknown[] = [];
    let clock = 1_000_000;
    const dispatcher = new WakeUpDispatcher({
      subscriptions,
      liveAmong: async (addresses) => new Set(addresses.filter((a) => live.has(a))),
      pending: async (addresses) => new Map(addresses.map((address) => [address, 3])),
      send: service.send,
      coalesceMs: 30_000,
      now: () => clock,
      onOutcome: counted.onOutcome,
      onError: (error) => errors.push(error),
      ...options,
    });
    opened.push({ close: () => dispatcher.close() });
    const subscribe = (address: string, name: string, expiresAt: number | null = null) =>
      subscriptions.subscribe(
        address,
        { endpoint: endpoint(name), ...keys, expiresAt },
        { now: clock, max: 8 },
      );
    return {
      subscriptions,
      dispatcher,
      service,
      counts: counted.counts,
      live,
      errors,
      subscribe,
      advance: (ms: number) => {
        clock += ms;
      },
    };
  }

  it("wakes every subscription of the address with {v:1, pending}", async () => {
    const t = await setUp();
    await t.subscribe(ALICE, "a1");
    await t.subscribe(ALICE, "a2");
    await t.subscribe(BOB, "b1");
    t.dispatcher.depositCommitted(ALICE);
    await t.dispatcher.idle();
    expect(t.service.requests.map((r) => r.endpoint).sort()).toEqual([
      endpoint("a1"),
      endpoint("a2"),
    ]);
    expect(t.service.requests[0]?.plaintext).toBe('{"v":1,"pending":3}');
    expect(t.counts).toEqual({ sent: 2 });
  });

  it("sends nothing for an address without subscriptions or with a live bridge", async () => {
    const t = await setUp();
    await t.subscribe(ALICE, "a1");
    t.live.add(ALICE);
    t.dispatcher.depositCommitted(ALICE);
    t.dispatcher.depositCommitted(BOB);
    await t.dispatcher.idle();
    expect(t.service.requests).toEqual([]);
    expect(t.counts).toEqual({});
  });

  it("coalesces until the interval passes or the address fetches", async () => {
    const t = await setUp();
    await t.subscribe(ALICE, "a1");
    t.dispatcher.depositCommitted(ALICE);
    await t.dispatcher.idle();
    t.dispatcher.depositCommitted(ALICE);
    await t.dispatcher.idle();
    expect(t.service.requests).toHaveLength(1);
    expect(t.counts).toEqual({ sent: 1, coalesced: 1 });
    await t.dispatcher.fetched(ALICE);
    t.dispatcher.depositCommitted(ALICE);
    await t.dispatcher.idle();
    expect(t.service.requests).toHaveLength(2);
    t.advance(30_000);
    t.dispatcher.depositCommitted(ALICE);
    await t.dispatcher.idle();
    expect(t.service.requests).toHaveLength(3);
  });

  it("adds nothing for a deposit while the address's wake-ups are queued or in flight", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const t = await setUp({ maxInFlight: 1 });
    t.service.holdUntil(gate);
    await t.subscribe(ALICE, "a1");
    await t.subscribe(ALICE, "a2");
    t.dispatcher.depositCommitted(ALICE);
    while (t.service.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    // One request hangs, the other waits for its slot; the interval passes, the app fetched.
    t.advance(60_000);
    await t.dispatcher.fetched(ALICE);
    t.dispatcher.depositCommitted(ALICE);
    t.dispatcher.depositCommitted(ALICE);
    expect(t.counts).toEqual({ coalesced: 4 });
    release();
    await t.dispatcher.idle();
    expect(t.service.requests).toHaveLength(2);
    expect(t.counts).toEqual({ coalesced: 4, sent: 2 });
    // Once they are answered, the next deposit wakes again.
    t.dispatcher.depositCommitted(ALICE);
    await t.dispatcher.idle();
    expect(t.service.requests).toHaveLength(4);
  });

  it("deletes a gone subscription and an expired one, and counts failures", async () => {
    const t = await setUp();
    await t.subscribe(ALICE, "gone");
    await t.subscribe(ALICE, "failing");
    await t.subscribe(ALICE, "refused");
    await t.subscribe(ALICE, "expired", 1_000_000 + 10);
    t.service.answers.set(endpoint("gone"), "gone");
    t.service.answers.set(endpoint("failing"), "failed");
    t.service.answers.set(endpoint("refused"), "refused");
    t.advance(20);
    t.dispatcher.depositCommitted(ALICE);
    await t.dispatcher.idle();
    expect(t.service.requests.map((r) => r.endpoint)).not.toContain(endpoint("expired"));
    expect(t.counts).toEqual({ gone: 1, failed: 1, refused: 1 });
    expect((await t.subscriptions.ofAddresses([ALICE])).map((s) => s.endpoint).sort()).toEqual([
      endpoint("failing"),
      endpoint("refused"),
    ]);
  });

  it("keeps at most maxInFlight requests out and drops deposits past maxQueued", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const t = await setUp({ maxInFlight: 2, maxQueued: 3 });
    t.service.holdUntil(gate);
    for (const n of [1, 2, 3, 4, 5]) await t.subscribe(`u${n}@example.org`, `u${n}`);
    for (const n of [1, 2, 3, 4, 5]) t.dispatcher.depositCommitted(`u${n}@example.org`);
    expect(t.counts).toEqual({ dropped: 2 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(t.service.requests).toHaveLength(2);
    release();
    await t.dispatcher.idle();
    expect(t.service.requests).toHaveLength(3);
    expect(t.counts).toEqual({ dropped: 2, sent: 3 });
  });

  it("starts one request per turn of the event loop when many slots are free at once", async () => {
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const startedAtTurn: number[] = [];
    const t = await setUp({
      send: async () => {
        startedAtTurn.push(turns);
        return { outcome: "sent" };
      },
    });
    for (const n of [1, 2, 3, 4, 5, 6]) await t.subscribe(ALICE, `a${n}`);
    t.dispatcher.depositCommitted(ALICE);
    await t.dispatcher.idle();
    ticking = false;
    expect(startedAtTurn).toHaveLength(6);
    expect(new Set(startedAtTurn).size).toBe(6);
    expect(t.counts).toEqual({ sent: 6 });
  });

  it("closes without waiting for a request that hangs, dropping what was queued", async () => {
    const t = await setUp({ maxInFlight: 1 });
    t.service.holdUntil(new Promise(() => {}));
    await t.subscribe(ALICE, "a1");
    await t.subscribe(ALICE, "a2");
    t.dispatcher.depositCommitted(ALICE);
    while (t.service.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    const started = Date.now();
    await t.dispatcher.close(100);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(t.counts).toEqual({ dropped: 1 });
    t.dispatcher.depositCommitted(ALICE);
    expect(t.service.requests).toHaveLength(1);
  });
});

describe.skipIf(!hasTestPostgres())("two dispatchers on one PostgreSQL", () => {
  it("send one wake-up when each hears a deposit for the address at the same time", async () => {
    const database = await createTestDatabase();
    opened.push({ close: database.drop });
    const storages: Storage[] = [];
    for (let i = 0; i < 2; i++) {
      const storage = await openStorage({
        databaseUrl: database.url,
        migrations: [pushMigrations],
      });
      opened.push(storage);
      storages.push(storage);
    }
    const service = fakeService();
    const counted = tally();
    const [a, b] = storages.map((storage) => {
      const dispatcher = new WakeUpDispatcher({
        subscriptions: createPushSubscriptions(storage.db) as PushSubscriptions,
        liveAmong: async () => new Set(),
        pending: async (addresses) => new Map(addresses.map((address) => [address, 2])),
        send: service.send,
        coalesceMs: 30_000,
        onOutcome: counted.onOutcome,
      });
      opened.push({ close: () => dispatcher.close() });
      return dispatcher;
    }) as [WakeUpDispatcher, WakeUpDispatcher];
    const subscriptions = createPushSubscriptions((storages[0] as Storage).db);
    for (const name of ["a1", "a2"]) {
      await subscriptions.subscribe(
        ALICE,
        { endpoint: endpoint(name), ...keys, expiresAt: null },
        { now: Date.now(), max: 8 },
      );
    }
    for (let round = 0; round < 5; round++) {
      a.depositCommitted(ALICE);
      b.depositCommitted(ALICE);
      await Promise.all([a.idle(), b.idle()]);
      await subscriptions.fetched(ALICE);
    }
    // Each round: one wake-up per subscription, whichever instance claimed it.
    expect(service.requests).toHaveLength(10);
    expect(counted.counts).toEqual({ sent: 10, coalesced: 10 });
  });
});
