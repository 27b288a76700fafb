import { createHash } from "node:crypto";
import { encodeBase64, encodeBase64Url } from "@svc/canonical";
import type { Storage } from "@svc/db";
import { createTestStorage, until } from "@svc/db/testing";
import { count, eq, sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import type { DepositInput } from "./deposit.js";
import { InboxError } from "./errors.js";
import { startPruner } from "./pruner.js";
import { inboxBlobs, inboxMigrations, inboxRegistrations } from "./schema.js";
import { type CommittedDeposit, InboxStore, type InboxStoreOptions } from "./store.js";

const T0 = 1_763_780_000_000;
const ALICE = "alice@example.com:1";
const BOB = "bob@example.com:1";
const ALICE_KEY = new Uint8Array(32).fill(1);
const SENDER_KEY = new Uint8Array(32).fill(2);

const storages: Storage[] = [];
afterEach(async () => {
  for (const storage of storages.splice(0)) await storage.close();
});

async function setup(
  options: Partial<
    Pick<InboxStoreOptions, "quota" | "depositConcurrency" | "depositNotice" | "depositWakeCheck">
  > = {},
) {
  const storage = await createTestStorage({ migrations: [inboxMigrations] });
  storages.push(storage);
  const clock = { now: T0 };
  const store = new InboxStore({
    db: storage.db,
    now: () => clock.now,
    quota: 1000,
    minTtlMs: 60_000,
    maxTtlMs: 30 * 86_400_000,
    ...options,
  });
  await store.register(ALICE, ALICE_KEY);
  return { storage, store, clock };
}

function blob(n: number, overrides: Partial<DepositInput> = {}): DepositInput {
  const ciphertext = Uint8Array.of(0x02, n & 0xff, n >> 8);
  return {
    address: ALICE,
    msgId: createHash("sha256").update(ciphertext).digest("hex"),
    ciphertext,
    senderPublicKey: SENDER_KEY,
    expiresAt: T0 + 3_600_000,
    ...overrides,
  };
}

async function codeOf(work: Promise<unknown>): Promise<string | undefined> {
  try {
    await work;
    return undefined;
  } catch (error) {
    if (error instanceof InboxError) return error.code;
    throw error;
  }
}

describe("InboxStore registrations", () => {
  it("binds an address to its first key and refuses another", async () => {
    const { store } = await setup();
    await store.register(ALICE, ALICE_KEY);
    expect(await codeOf(store.register(ALICE, SENDER_KEY))).toBe("SVC_WRONG_KEY");
    expect(await store.bindingKey(ALICE)).toEqual(ALICE_KEY);
    expect(await store.bindingKey("nobody:1")).toBeUndefined();
  });

  it("unregisters only for the bound key, dropping queued blobs", async () => {
    const { store } = await setup();
    await store.deposit(blob(1));
    expect(await store.unregister(ALICE, SENDER_KEY)).toBe(false);
    expect(await store.unregister(ALICE, ALICE_KEY)).toBe(true);
    await store.register(ALICE, SENDER_KEY);
    expect(await store.envelopesSince(ALICE, 0, 10)).toEqual([]);
  });
});

describe("InboxStore deposits", () => {
  it("queues, answers repeats idempotently and refuses a repeat from another key", async () => {
    const { store } = await setup();
    expect(await store.deposit(blob(1))).toEqual({
      idempotent: false,
      expiresAt: T0 + 3_600_000,
      receivedAt: T0,
      previousReceivedAt: 0,
    });
    expect(await store.deposit(blob(1))).toEqual({ idempotent: true });
    const other = blob(1, { senderPublicKey: new Uint8Array(32).fill(3) });
    expect(await codeOf(store.deposit(other))).toBe("SVC_WRONG_KEY");
  });

  it("refuses a deposit for an address without registration", async () => {
    const { store } = await setup();
    expect(await codeOf(store.deposit(blob(1, { address: "nobody:1" })))).toBe(
      "SVC_NOT_REGISTERED",
    );
  });

  it("hands out strictly increasing receivedAt within one millisecond", async () => {
    const { store } = await setup();
    const received = [];
    for (let n = 0; n < 5; n++) {
      const result = await store.deposit(blob(n));
      if (!result.idempotent) received.push(result.receivedAt);
    }
    expect(received).toEqual([T0, T0 + 1, T0 + 2, T0 + 3, T0 + 4]);
  });

  it("enforces the quota with a Retry-After until the oldest blob expires", async () => {
    const { store, clock } = await setup({ quota: 2 });
    await store.deposit(blob(1, { expiresAt: T0 + 90_500 }));
    await store.deposit(blob(2));
    clock.now = T0 + 500;
    const refused = await store.deposit(blob(3)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InboxError);
    expect(refused).toMatchObject({ code: "SVC_QUOTA_EXCEEDED", retryAfterSeconds: 90 });
    expect(await store.deposit(blob(2))).toEqual({ idempotent: true });
    clock.now = T0 + 90_500; // the first blob expires: its slot is free again
    expect(await store.deposit(blob(3))).toMatchObject({ idempotent: false });
  });

  it("counts the unexpired blobs pending for each address", async () => {
    const { store, clock } = await setup();
    await store.register(BOB, ALICE_KEY);
    expect(await store.pending([ALICE])).toEqual(new Map([[ALICE, 0]]));
    await store.deposit(blob(1, { expiresAt: T0 + 61_000 }));
    await store.deposit(blob(2));
    await store.deposit(blob(3));
    await store.deposit(blob(4, { address: BOB }));
    expect(await store.pending([ALICE, BOB, "nobody"])).toEqual(
      new Map([
        [ALICE, 3],
        [BOB, 1],
        ["nobody", 0],
      ]),
    );
    clock.now = T0 + 61_000;
    expect(await store.pending([ALICE])).toEqual(new Map([[ALICE, 2]]));
    expect(await store.pending([])).toEqual(new Map());
  });

  it("queues a msgId anew once its earlier blob has expired", async () => {
    const { store, clock } = await setup();
    await store.deposit(blob(1, { expiresAt: 0 }));
    clock.now = T0 + 60_000;
    expect(await store.deposit(blob(1))).toMatchObject({ idempotent: false });
    expect(await store.envelopesSince(ALICE, 0, 10)).toHaveLength(1);
  });

  it("tells deposit listeners after the commit, once per stored blob", async () => {
    const { store } = await setup();
    const heard: CommittedDeposit[] = [];
    const stop = store.onDeposit((deposit) => heard.push(deposit));
    await store.deposit(blob(1));
    await store.deposit(blob(1)); // a repeat: nothing new
    await store.deposit(blob(2, { from: "bob:2" }));
    stop();
    await store.deposit(blob(3));
    expect(heard.map((d) => [d.address, d.previousReceivedAt, d.receivedAt])).toEqual([
      [ALICE, 0, T0],
      [ALICE, T0, T0 + 1],
    ]);
    // What a bridge at the previous receivedAt would read next, without reading it.
    for (const deposit of heard) {
      const [next] = await store.envelopesSince(ALICE, deposit.previousReceivedAt, 1);
      expect(deposit.envelope()).toEqual(next);
    }
  });

  it("offers no envelope for a blob that has expired, as a read would not return it", async () => {
    const { storage, store, clock } = await setup();
    const heard: CommittedDeposit[] = [];
    store.onDeposit((deposit) => heard.push(deposit));
    await store.deposit(blob(1));
    const noMinimum = new InboxStore({
      db: storage.db,
      now: () => clock.now,
      quota: 1000,
      minTtlMs: 0,
      maxTtlMs: 30 * 86_400_000,
    });
    noMinimum.onDeposit((deposit) => heard.push(deposit));
    await noMinimum.deposit(blob(2, { expiresAt: 0 })); // expires the moment it is stored
    expect(heard[1]?.envelope()).toBeUndefined();
    expect(heard[0]?.envelope()).toBeDefined();
    clock.now = T0 + 3_600_000;
    expect(heard[0]?.envelope()).toBeUndefined();
  });
});

describe("InboxStore deposits served as one batch", () => {
  it("answers each deposit of a batch as if it had come alone, in arrival order", async () => {
    const { store } = await setup({ quota: 3, depositConcurrency: 1 });
    const heard: Array<[number, number]> = [];
    store.onDeposit((d) => heard.push([d.previousReceivedAt, d.receivedAt]));
    const other = new Uint8Array(32).fill(9);
    // The first deposit runs alone; the other seven wait for it and share one transaction.
    const outcomes = await Promise.all(
      [
        blob(1),
        blob(2),
        blob(2),
        blob(3, { senderPublicKey: other }),
        blob(3),
        blob(4, { address: "nobody@example.com:1" }),
        blob(5),
        blob(2, { senderPublicKey: other }),
      ].map((input) =>
        store.deposit(input).then(
          (result) => (result.idempotent ? "idempotent" : "stored"),
          (error: InboxError) => error.code,
        ),
      ),
    );
    expect(outcomes).toEqual([
      "stored",
      "stored",
      "idempotent",
      "stored",
      "SVC_WRONG_KEY",
      "SVC_NOT_REGISTERED",
      "SVC_QUOTA_EXCEEDED",
      "SVC_WRONG_KEY",
    ]);
    const page = await store.fetch(ALICE, null, 10);
    expect(page.items.map((item) => item.msgId)).toEqual(
      [blob(1), blob(2), blob(3)].map((b) => b.msgId),
    );
    const receivedAt = page.items.map((item) => item.receivedAt);
    expect(receivedAt).toEqual([...receivedAt].sort((a, b) => a - b));
    expect(new Set(receivedAt).size).toBe(3);
    // Each stored deposit names the one before it, also within the batch; refusals and the
    // repeat in between neither take a receivedAt nor are heard.
    expect(heard).toEqual([
      [0, T0],
      [T0, T0 + 1],
      [T0 + 1, T0 + 2],
    ]);
  });
});

describe("InboxStore deposit notice", () => {
  it("is sent by the deposit's own transaction, once per recipient a batch stored for", async () => {
    const notice = { channel: "svc_test_deposit", prefix: "tag " };
    const { storage, store } = await setup({
      quota: 2,
      depositConcurrency: 1,
      depositNotice: notice,
    });
    await store.register(BOB, ALICE_KEY);
    const heard: string[] = [];
    const unlisten = await storage.listen(notice.channel, (payload) => heard.push(payload));
    const notified: boolean[] = [];
    store.onDeposit((deposit) => notified.push(deposit.notified));
    await store.deposit(blob(1));
    await until(() => heard.length === 1);
    // One batch: two stored for Alice (the third is over quota), one for Bob, one refused.
    const outcomes = await Promise.allSettled(
      [blob(2), blob(3), blob(4), blob(5, { address: BOB }), blob(6, { address: "nobody" })].map(
        (input) => store.deposit(input),
      ),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      "fulfilled",
      "rejected",
      "rejected",
      "fulfilled",
      "rejected",
    ]);
    await until(() => heard.length === 3);
    await store.deposit(blob(1)); // a repeat stores nothing and announces nothing
    await new Promise((resolve) => setTimeout(resolve, 100));
    await unlisten();
    expect(heard.slice(0, 1)).toEqual([`tag ${ALICE}`]);
    expect(heard.slice(1).sort()).toEqual([`tag ${ALICE}`, `tag ${BOB}`]);
    expect(notified).toEqual([true, true, true]);
  });

  it("marks no deposit notified in a store without one", async () => {
    const { store } = await setup();
    const notified: boolean[] = [];
    store.onDeposit((deposit) => notified.push(deposit.notified));
    await store.deposit(blob(1));
    expect(notified).toEqual([false]);
  });
});

describe("InboxStore deposit wake check", () => {
  // Another package's function, as its migration would make it: true for Bob only, and only
  // when given the deposit's time and the configured argument; null for a third address.
  const CAROL = "carol@example.com:1";
  const CHECK = `create function test_wake_check(p_address text, p_now bigint, p_argument bigint)
    returns boolean language sql stable as $$
      select case when p_address = '${CAROL}' then null
        else p_address = '${BOB}' and p_now = ${T0} and p_argument = 7 end
    $$`;

  it("answers each stored blob of a batch in the deposit statement itself", async () => {
    const { storage, store } = await setup({
      quota: 2,
      depositConcurrency: 1,
      depositWakeCheck: { sqlFunction: "test_wake_check", argument: 7 },
    });
    await storage.db.execute(sql.raw(CHECK));
    await store.register(BOB, ALICE_KEY);
    await store.register(CAROL, ALICE_KEY);
    const heard: Array<[string, boolean | null | undefined]> = [];
    store.onDeposit((deposit) => heard.push([deposit.address, deposit.wakeUpDue]));
    await store.deposit(blob(1));
    const outcomes = await Promise.allSettled(
      [
        blob(2),
        blob(3),
        blob(4, { address: BOB }),
        blob(5, { address: "nobody" }),
        blob(1),
        blob(6, { address: CAROL }),
      ].map((input) => store.deposit(input)),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    expect(outcomes[2]).toMatchObject({ value: { idempotent: false, wakeUpDue: true } });
    expect(outcomes[4]).toEqual({ status: "fulfilled", value: { idempotent: true } });
    expect(heard).toEqual([
      [ALICE, false],
      [ALICE, false],
      [BOB, true],
      [CAROL, null],
    ]);
  });

  it("leaves wakeUpDue undefined in a store without one", async () => {
    const { store } = await setup();
    const heard: CommittedDeposit[] = [];
    store.onDeposit((deposit) => heard.push(deposit));
    expect(await store.deposit(blob(1))).not.toHaveProperty("wakeUpDue");
    expect(heard[0]).not.toHaveProperty("wakeUpDue");
  });

  it("refuses a function name that is not a plain SQL identifier", async () => {
    const { storage } = await setup();
    const options = { db: storage.db, now: () => T0, quota: 1, minTtlMs: 0, maxTtlMs: 1 };
    for (const sqlFunction of ["", "pg_sleep(1);--", "Upper", "a.b", "x y"]) {
      expect(
        () => new InboxStore({ ...options, depositWakeCheck: { sqlFunction, argument: 1 } }),
      ).toThrow(TypeError);
    }
  });
});

describe("InboxStore reads", () => {
  it("serves backlog envelopes oldest first with the D6 sender name", async () => {
    const { store } = await setup();
    await store.deposit(blob(1));
    await store.deposit(blob(2, { from: "bob:2" }));
    const envelopes = await store.envelopesSince(ALICE, 0, 10);
    expect(envelopes).toEqual([
      {
        from: `key:${encodeBase64Url(SENDER_KEY)}`,
        bytes: encodeBase64(blob(1).ciphertext),
        receivedAt: T0,
        msgId: blob(1).msgId,
      },
      {
        from: "bob:2",
        bytes: encodeBase64(blob(2).ciphertext),
        receivedAt: T0 + 1,
        msgId: blob(2).msgId,
      },
    ]);
    expect(await store.envelopesSince(ALICE, T0, 10)).toHaveLength(1);
    await expect(store.envelopesSince(ALICE, 0, 0)).rejects.toThrow(RangeError);
  });

  it("pages fetches by cursor and never returns an expired blob", async () => {
    const { store, clock } = await setup();
    for (let n = 0; n < 3; n++) await store.deposit(blob(n, { expiresAt: T0 + 60_000 + n }));
    const first = await store.fetch(ALICE, null, 2);
    expect(first.items.map((item) => item.receivedAt)).toEqual([T0, T0 + 1]);
    expect(first.nextCursor).not.toBeNull();
    const second = await store.fetch(ALICE, first.nextCursor, 2);
    expect(second).toMatchObject({ items: [{ receivedAt: T0 + 2 }], nextCursor: null });
    clock.now = T0 + 60_001; // blob 0 and 1 reach expiresAt
    expect((await store.fetch(ALICE, null, 10)).items.map((i) => i.receivedAt)).toEqual([T0 + 2]);
    expect(await codeOf(store.ack(ALICE, blob(0).msgId))).toBe("SVC_BLOB_NOT_FOUND");
    expect(await codeOf(store.fetch("bob:1", first.nextCursor, 2))).toBe("SVC_BAD_REQUEST");
  });

  it("prunes expired blobs in batches and reports each cycle", async () => {
    const { store, clock } = await setup();
    for (let n = 0; n < 7; n++) await store.deposit(blob(n, { expiresAt: 0 }));
    await store.deposit(blob(99));
    clock.now = T0 + 60_000;
    expect(await store.pruneExpired(3)).toBe(7);
    expect(await store.pruneExpired()).toBe(0);
    expect(await store.envelopesSince(ALICE, 0, 10)).toHaveLength(1);

    await store.deposit(blob(100, { expiresAt: 0 }));
    clock.now = T0 + 120_000;
    const cycles: number[] = [];
    const stop = startPruner(store, { intervalMs: 5, onCycle: (n) => cycles.push(n) });
    await expect.poll(() => cycles.length).toBeGreaterThan(1);
    await stop();
    expect(cycles[0]).toBe(1);
  });
});

/** The registration's stored_blobs beside the number of rows it stands for. */
async function counts(storage: Storage) {
  const [row] = await storage.db
    .select({ stored: inboxRegistrations.storedBlobs })
    .from(inboxRegistrations)
    .where(eq(inboxRegistrations.address, ALICE));
  const rows = await storage.db
    .select({ n: count() })
    .from(inboxBlobs)
    .where(eq(inboxBlobs.address, ALICE));
  return { stored: row?.stored, rows: rows[0]?.n };
}

describe("InboxStore stored-blob count", () => {
  it("stays exact through deposits, replacements, acks and prunes", async () => {
    const { storage, store, clock } = await setup({ quota: 2 });
    await store.deposit(blob(1, { expiresAt: 0 }));
    await store.deposit(blob(2, { expiresAt: 0 }));
    expect(await counts(storage)).toEqual({ stored: 2, rows: 2 });

    // Both have expired but wait for the pruner: the quota counts only unexpired blobs.
    clock.now = T0 + 60_000;
    await store.deposit(blob(1)); // replaces the expired row of the same msgId
    await store.deposit(blob(3));
    expect(await counts(storage)).toEqual({ stored: 3, rows: 3 });
    expect(await codeOf(store.deposit(blob(4)))).toBe("SVC_QUOTA_EXCEEDED");

    expect(await store.pruneExpired()).toBe(1);
    expect(await counts(storage)).toEqual({ stored: 2, rows: 2 });
    await store.ack(ALICE, blob(3).msgId);
    expect(await codeOf(store.ack(ALICE, blob(3).msgId))).toBe("SVC_BLOB_NOT_FOUND");
    expect(await counts(storage)).toEqual({ stored: 1, rows: 1 });
    await store.deposit(blob(4));
    expect(await codeOf(store.deposit(blob(5)))).toBe("SVC_QUOTA_EXCEEDED");
    expect(await counts(storage)).toEqual({ stored: 2, rows: 2 });
  });

  it("keeps receivedAt ahead of the last one when the clock steps back", async () => {
    const { store, clock } = await setup();
    await store.deposit(blob(1));
    clock.now = T0 - 5_000;
    expect(await store.deposit(blob(2))).toMatchObject({ receivedAt: T0 + 1 });
  });
});

describe("InboxStore under concurrency", () => {
  it("admits exactly `quota` of many parallel deposits to one address", async () => {
    const { store } = await setup({ quota: 20 });
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, n) => codeOf(store.deposit(blob(n)))),
    );
    expect(outcomes.filter((code) => code === undefined)).toHaveLength(20);
    expect(outcomes.filter((code) => code === "SVC_QUOTA_EXCEEDED")).toHaveLength(30);
    const queued = await store.envelopesSince(ALICE, 0, 100);
    expect(queued).toHaveLength(20);
    const received = queued.map((envelope) => envelope.receivedAt);
    expect(new Set(received).size).toBe(20);
  });

  it("keeps the stored-blob count exact while deposits, acks and prunes race", async () => {
    const { storage, store, clock } = await setup();
    for (let n = 0; n < 20; n++) await store.deposit(blob(n, { expiresAt: 0 }));
    clock.now = T0 + 60_000; // those 20 have expired; 10 of them are deposited anew below
    // The acked blobs are deposited only here: a second deposit of one could come after its ack
    // and rightly store it again, which would make the final count depend on the interleaving.
    await Promise.all([
      ...Array.from({ length: 40 }, (_, n) => store.deposit(blob(n + 10))),
      ...Array.from({ length: 10 }, (_, n) =>
        store.deposit(blob(n + 50)).then(() => store.ack(ALICE, blob(n + 50).msgId)),
      ),
      store.pruneExpired(3),
    ]);
    await store.pruneExpired();
    expect(await counts(storage)).toEqual({ stored: 40, rows: 40 });
  });
});
