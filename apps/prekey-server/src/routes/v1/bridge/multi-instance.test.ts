import { createHash } from "node:crypto";
import { DEPOSIT_CHANNEL } from "@svc/bridge-hub";
import { ed25519KeyPairFromSeed } from "@svc/canonical";
import { openStorage, type Storage } from "@svc/db";
import { createTestDatabase, hasTestPostgres, until } from "@svc/db/testing";
import { InboxStore } from "@svc/inbox";
import { migrations } from "@svc/server-schema";
import { bridgeUrl, party, presenceUrl, SseReader } from "@svc/test-client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { RunningServer } from "../../../server.js";
import { startTestServer } from "../../../test-support/app.js";
import { registeredInbox } from "./test-support/running-server.js";

const ALICE = "alice@example.com:1";
const alice = party("alice");
const BOB = "bob:1";
const bob = party("bob");

describe.runIf(hasTestPostgres())("two server instances on one PostgreSQL database", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let storages: Storage[];
  let a: RunningServer;
  let b: RunningServer;
  const closers: Array<() => void> = [];

  beforeEach(async () => {
    database = await createTestDatabase();
    storages = [];
    const instance = async () => {
      const storage = await openStorage({ databaseUrl: database.url, poolSize: 5, migrations });
      storages.push(storage);
      return startTestServer({}, { storage });
    };
    a = await instance();
    b = await instance();
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) close();
    await a.stop();
    await b.stop();
    for (const storage of storages) await storage.close();
    await database.drop();
  });

  async function sse(url: string) {
    const controller = new AbortController();
    closers.push(() => controller.abort());
    const res = await fetch(url, { signal: controller.signal });
    expect(res.status).toBe(200);
    return { reader: new SseReader(res), close: () => controller.abort() };
  }

  it("delivers a deposit taken by A to an SSE bridge on B within 1 s", async () => {
    const deposit = await registeredInbox(a, ALICE, alice);
    const { reader } = await sse(bridgeUrl(b.url, "stream", alice, ALICE));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    const bytes = await deposit(1);
    await until(() => reader.events.length === 1, 1000);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(reader.data<{ bytes: string }>("envelope")[0]?.bytes).toBe(bytes);
  });

  it("shows a WebSocket bridge on B to a presence feed on A, and its end", async () => {
    await registeredInbox(a, ALICE, alice);
    await registeredInbox(a, BOB, bob);
    const { reader } = await sse(presenceUrl(a.url, alice, ALICE, [BOB]));
    await until(() => reader.events.length === 1);
    const socket = new WebSocket(bridgeUrl(b.url, "ws", bob, BOB).replace(/^http/, "ws"));
    closers.push(() => socket.terminate());
    await until(() => reader.events.length === 2);
    socket.close();
    await until(() => reader.events.length === 3);
    expect(reader.events.map((e) => [e.event, JSON.parse(e.data).address])).toEqual([
      ["presence", BOB],
      ["inbox.peer_connected", BOB],
      ["inbox.peer_disconnected", BOB],
    ]);
  });

  it("delivers 1,000 envelopes exactly once to a client that keeps reconnecting", async () => {
    await registeredInbox(a, ALICE, alice);
    const store = new InboxStore({
      db: storages[0]?.db as Storage["db"],
      now: Date.now,
      quota: 5000,
      minTtlMs: 60_000,
      maxTtlMs: 3_600_000,
    });
    const sender = ed25519KeyPairFromSeed(new Uint8Array(32).fill(7)).publicKey;
    const depositing = (async () => {
      for (let n = 0; n < 1000; n++) {
        const ciphertext = new Uint8Array([2, n >> 8, n & 0xff]);
        const msgId = createHash("sha256").update(ciphertext).digest("hex");
        await store.deposit({
          address: ALICE,
          msgId,
          ciphertext,
          senderPublicKey: sender,
          expiresAt: Date.now() + 3_600_000,
        });
        // The store is outside both servers: announce the deposit as an instance would.
        if (n % 10 === 9) await storages[0]?.notify(DEPOSIT_CHANNEL, [ALICE]);
      }
    })();

    const seen: string[] = [];
    let lastEventId: string | undefined;
    let round = 0;
    while (seen.length < 1000) {
      const server = round++ % 2 === 0 ? a : b;
      const controller = new AbortController();
      const headers: Record<string, string> = lastEventId ? { "Last-Event-ID": lastEventId } : {};
      const res = await fetch(bridgeUrl(server.url, "stream", alice, ALICE), {
        headers,
        signal: controller.signal,
      });
      const reader = new SseReader(res);
      await new Promise((resolve) => setTimeout(resolve, 30 + Math.random() * 70));
      controller.abort();
      await reader.done;
      for (const event of reader.events) {
        seen.push(event.data);
        lastEventId = event.id;
      }
      if (round > 5000) throw new Error("no progress");
    }
    await depositing;
    expect(seen).toHaveLength(1000);
    expect(new Set(seen).size).toBe(1000);
    const order = seen.map((data) => JSON.parse(data).receivedAt as number);
    expect(order).toEqual([...order].sort((x, y) => x - y));
    expect(round).toBeGreaterThan(5);
  }, 120_000);
});
