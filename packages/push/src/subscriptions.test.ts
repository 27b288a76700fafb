import type { Storage } from "@svc/db";
import { createTestStorage, hasTestPostgres } from "@svc/db/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { PushStoreError } from "./errors.js";
import { pushMigrations } from "./schema.js";
import { createPushSubscriptions, type NewSubscription } from "./subscriptions.js";

const opened: Storage[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

// Migrating the first test database of a file is slow: pay it outside the tests' time limit.
beforeAll(async () =>
  (await createTestStorage({ kind: "pglite", migrations: [pushMigrations] })).close(),
);

const kinds = hasTestPostgres() ? (["pglite", "postgres"] as const) : (["pglite"] as const);

const subscription = (n: number, keyByte = n): NewSubscription => ({
  endpoint: `https://push.example.net/s/${n}`,
  p256dh: new Uint8Array(65).fill(keyByte),
  auth: new Uint8Array(16).fill(keyByte),
  expiresAt: null,
});
const ALICE = "alice@example.org";
const BOB = "bob@example.org";

describe.each(kinds)("push subscriptions on %s", (kind) => {
  async function store() {
    const storage = await createTestStorage({ kind, migrations: [pushMigrations] });
    opened.push(storage);
    return createPushSubscriptions(storage.db);
  }

  it("adds, renews without counting twice, lists and removes", async () => {
    const subs = await store();
    const limits = { now: 1000, max: 2 };
    expect(await subs.subscribe(ALICE, subscription(1), limits)).toBe("added");
    expect(await subs.subscribe(ALICE, subscription(2), limits)).toBe("added");
    expect(await subs.subscribe(ALICE, subscription(1, 9), limits)).toBe("renewed");
    expect(await subs.subscribe(BOB, subscription(1), limits)).toBe("added");
    const alice = await subs.ofAddresses([ALICE]);
    expect(alice.map((s) => s.endpoint).sort()).toEqual([
      subscription(1).endpoint,
      subscription(2).endpoint,
    ]);
    expect(alice.find((s) => s.endpoint === subscription(1).endpoint)?.p256dh).toEqual(
      new Uint8Array(65).fill(9),
    );
    expect(await subs.count()).toBe(3);
    expect(await subs.unsubscribe(ALICE, subscription(1).endpoint)).toBe(true);
    expect(await subs.unsubscribe(ALICE, subscription(1).endpoint)).toBe(false);
    expect(await subs.unsubscribeAll(BOB)).toBe(1);
    expect((await subs.ofAddresses([ALICE, BOB])).map((s) => s.address)).toEqual([ALICE]);
  });

  it("refuses a subscription past the limit with SVC_TOO_MANY_SUBSCRIPTIONS", async () => {
    const subs = await store();
    const limits = { now: 1000, max: 2 };
    await subs.subscribe(ALICE, subscription(1), limits);
    await subs.subscribe(ALICE, subscription(2), limits);
    const error = await subs.subscribe(ALICE, subscription(3), limits).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PushStoreError);
    expect((error as PushStoreError).code).toBe("SVC_TOO_MANY_SUBSCRIPTIONS");
    expect((error as PushStoreError).status).toBe(409);
    // Many at once: the lock per address keeps the count.
    const results = await Promise.allSettled(
      [4, 5, 6, 7].map((n) => subs.subscribe(BOB, subscription(n), limits)),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(2);
    expect(await subs.ofAddresses([BOB])).toHaveLength(2);
  });

  it("claims a subscription once per interval, and again at once after a fetch", async () => {
    const subs = await store();
    await subs.subscribe(ALICE, subscription(1), { now: 0, max: 8 });
    expect((await subs.claim([ALICE], 1000, 30_000)).claimed.map((s) => s.endpoint)).toEqual([
      subscription(1).endpoint,
    ]);
    expect(await subs.claim([ALICE], 2000, 30_000)).toEqual({ claimed: [], coalesced: 1 });
    expect((await subs.ofAddresses([ALICE]))[0]?.wokenAt).toBe(1000);
    expect((await subs.claim([ALICE], 31_000, 30_000)).claimed).toHaveLength(1);
    await subs.fetched(ALICE);
    expect((await subs.ofAddresses([ALICE]))[0]?.wokenAt).toBeNull();
    expect((await subs.claim([ALICE], 31_001, 30_000)).claimed).toHaveLength(1);
    // Renewal (new keys) wakes at once too.
    await subs.subscribe(ALICE, subscription(1, 7), { now: 31_002, max: 8 });
    const [renewed] = (await subs.claim([ALICE], 31_003, 30_000)).claimed;
    expect(renewed?.auth).toEqual(new Uint8Array(16).fill(7));
  });

  it("never claims an expired subscription, and removes it in the same statement", async () => {
    const subs = await store();
    await subs.subscribe(ALICE, { ...subscription(1), expiresAt: 5000 }, { now: 0, max: 8 });
    await subs.subscribe(ALICE, { ...subscription(2), expiresAt: 50_000 }, { now: 0, max: 8 });
    await subs.subscribe(ALICE, subscription(3), { now: 0, max: 8 });
    await subs.subscribe(BOB, { ...subscription(4), expiresAt: 5000 }, { now: 0, max: 8 });
    await subs.claim([ALICE], 10, 30_000);
    const { claimed, coalesced } = await subs.claim([ALICE], 6000, 30_000);
    expect({ claimed, coalesced }).toEqual({ claimed: [], coalesced: 2 });
    expect((await subs.ofAddresses([ALICE])).map((s) => s.expiresAt).sort()).toEqual([
      50_000,
      null,
    ]);
    expect(await subs.ofAddresses([BOB])).toHaveLength(1); // not among the claimed addresses
    await subs.fetched(ALICE);
    expect((await subs.claim([ALICE, BOB], 6001, 30_000)).claimed.map((s) => s.wokenAt)).toEqual([
      6001, 6001,
    ]);
    expect(await subs.ofAddresses([BOB])).toEqual([]);
  });

  it("claims each subscription once when many claim at the same time", async () => {
    const subs = await store();
    for (const n of [1, 2, 3]) await subs.subscribe(ALICE, subscription(n), { now: 0, max: 8 });
    const claims = await Promise.all(
      Array.from({ length: 8 }, () => subs.claim([ALICE], 1000, 30_000)),
    );
    expect(
      claims
        .flatMap((claim) => claim.claimed)
        .map((s) => s.endpoint)
        .sort(),
    ).toEqual([1, 2, 3].map((n) => subscription(n).endpoint));
    expect(claims.reduce((sum, claim) => sum + claim.coalesced, 0)).toBe(7 * 3);
  });
});
