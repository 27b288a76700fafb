import { openStorage, type Storage } from "@svc/db";
import { createTestDatabase, hasTestPostgres } from "@svc/db/testing";
import { migrations } from "@svc/server-schema";
import {
  envelope,
  InboxClient,
  inProcess,
  overHttp,
  party,
  type Transport,
} from "@svc/test-client";
import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, startTestServer } from "../../../test-support/app.js";

const ALICE = "alice@example.com:1";
const alice = party("alice");
const QUOTA = { SVC_INBOX_QUOTA: "20" };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** 50 distinct deposits at once from 50 senders; returns the statuses. */
async function depositFifty(transports: Transport[]): Promise<number[]> {
  const clients = transports.map((transport) => new InboxClient(transport, Date.now));
  const first = clients[0] as InboxClient;
  expect((await first.register(ALICE, alice)).status).toBe(200);
  return Promise.all(
    Array.from({ length: 50 }, async (_, n) => {
      const client = clients[n % clients.length] as InboxClient;
      const res = await client.deposit(ALICE, party(`sender-${n}`), envelope(n, 256));
      await res.body?.cancel();
      return res.status;
    }),
  );
}

async function queued(transport: Transport): Promise<number[]> {
  const res = await new InboxClient(transport, Date.now).fetch(ALICE, alice, { limit: 100 });
  const page = (await res.json()) as { items: Array<{ receivedAt: number }> };
  return page.items.map((item) => item.receivedAt);
}

function expectExactlyTwenty(statuses: number[], receivedAt: number[]) {
  expect(statuses.filter((status) => status === 200)).toHaveLength(20);
  expect(statuses.filter((status) => status === 429)).toHaveLength(30);
  expect(receivedAt).toHaveLength(20);
  for (let i = 1; i < receivedAt.length; i++) {
    expect(receivedAt[i]).toBeGreaterThan(receivedAt[i - 1] as number);
  }
}

describe("parallel deposits to one address", { timeout: 60_000 }, () => {
  it("admit exactly the quota on one instance", async () => {
    const svc = await createTestApp(QUOTA);
    const transport = inProcess(svc.app);
    const statuses = await depositFifty([transport]);
    expectExactlyTwenty(statuses, await queued(transport));
  });

  it.runIf(hasTestPostgres())(
    "admit exactly the quota across two servers on one PostgreSQL database",
    async () => {
      const database = await createTestDatabase();
      cleanups.push(database.drop);
      const storages: Storage[] = [];
      for (let i = 0; i < 2; i++) {
        const storage = await openStorage({ databaseUrl: database.url, poolSize: 10, migrations });
        cleanups.push(() => storage.close());
        storages.push(storage);
      }
      const servers = await Promise.all(
        storages.map((storage) => startTestServer(QUOTA, { storage })),
      );
      for (const server of servers) cleanups.push(() => server.stop()); // before the storages close
      const transports = servers.map((server) => overHttp(server.url));
      const statuses = await depositFifty(transports);
      expectExactlyTwenty(statuses, await queued(transports[1] as Transport));
    },
  );
});
