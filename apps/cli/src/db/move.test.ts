import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executeRows, openStorage } from "@svc/db";
import { createTestDatabase, hasTestPostgres } from "@svc/db/testing";
import { loadConfig, migrations, startServer } from "@svc/prekey-server";
import {
  envelope,
  InboxClient,
  type Json,
  jsonRequest,
  msgIdOf,
  oneTimePreKeys,
  overHttp,
  party,
  range,
  registerBody,
  replenishBody,
  testIdentity,
} from "@svc/test-client";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../exit.js";
import { ALIASES } from "../programs.js";
import { runDbCli } from "./run.js";

const alice = testIdentity("alice@example.com:1");
const bob = testIdentity("bob@example.com:1");
const aliceInbox = { address: alice.address, owner: party("alice") };
const bobInbox = { address: bob.address, owner: party("bob") };
const inboxes = [aliceInbox, bobInbox];
const sender = party("sender");

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function svcDb(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runDbCli(ALIASES["svc-db"], argv, {
    stdout: (line) => out.push(line),
    stderr: (line) => err.push(line),
    env: {},
  });
  return { status, out: out.join("\n"), err: err.join("\n") };
}

/** The server as `pnpm start` runs it: on the embedded database under dataDir, or on PostgreSQL. */
async function startOn(dataDir: string, databaseUrl?: string) {
  const env: Record<string, string> = { SVC_PORT: "0", SVC_DATA_DIR: dataDir };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const server = await startServer(loadConfig({ ...env, SVC_LOG_LEVEL: "silent" }));
  const get = async (path: string) => (await fetch(`${server.url}${path}`)).json() as Promise<Json>;
  const post = (path: string, body: Json) =>
    fetch(`${server.url}${path}`, jsonRequest("POST", body));
  return { server, get, post, inbox: new InboxClient(overHttp(server.url), Date.now) };
}

type Running = Awaited<ReturnType<typeof startOn>>;

/** What the server serves without changing anything: the KT log, queue sizes, inbox pages. */
async function served({ get, inbox }: Running) {
  const pages = [];
  for (const { address, owner } of inboxes)
    pages.push(await (await inbox.fetch(address, owner)).json());
  return {
    logId: await get("/v1/kt/log_id"),
    sth: await get("/v1/kt/sth"),
    leaves: await get("/v1/kt/leaves?start=0"),
    counts: [
      await get(`/v1/keys/count/${alice.address}`),
      await get(`/v1/keys/count/${bob.address}`),
    ],
    pages,
  };
}

describe("svc-db move, without a database", () => {
  it("refuses a directory that holds no embedded database, and creates nothing in it", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "svc-db-move-empty-"));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const { status, err } = await svcDb("move", "--from", dataDir, "--to", "postgres://nowhere/x");
    expect(status).toBe(EXIT.refused);
    expect(err).toContain("no embedded database");
    expect(existsSync(join(dataDir, "pglite"))).toBe(false);
  });

  it.each([[["move"]], [["copy", "--to", "postgres://h/d"]], [["move", "--to", "mysql://h/d"]]])(
    "answers %j with the usage and exit 2",
    async (argv) => {
      const { status, err } = await svcDb(...argv);
      expect(status).toBe(EXIT.usage);
      expect(err).toContain("usage: svc-db move");
    },
  );
});

describe.runIf(hasTestPostgres())("svc-db move to PostgreSQL", () => {
  let dataDir: string;
  let before: Awaited<ReturnType<typeof served>>;
  let bundleBefore: Json;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "svc-db-move-"));
    const embedded = await startOn(dataDir);
    try {
      for (const identity of [alice, bob]) {
        const res = await embedded.post(
          "/v1/keys/register",
          registerBody(identity, Date.now(), range(1, 6)),
        );
        expect(res.status).toBe(200);
      }
      for (const { address, owner } of inboxes) {
        expect((await embedded.inbox.register(address, owner)).status).toBe(200);
      }
      for (let n = 1; n <= 3; n++) {
        expect((await embedded.inbox.deposit(alice.address, sender, envelope(n))).status).toBe(200);
      }
      const ack = await embedded.inbox.ack(alice.address, aliceInbox.owner, msgIdOf(envelope(1)));
      expect(ack.status).toBe(200);
      // Blobs of the largest default size: more JSON per fetch than one copy statement takes.
      for (let n = 10; n < 16; n++) {
        const big = envelope(n, 1024 * 1024);
        expect((await embedded.inbox.deposit(bob.address, sender, big)).status).toBe(200);
      }
      bundleBefore = await embedded.get(`/v1/keys/bundle/${alice.address}`);
      before = await served(embedded);
    } finally {
      await embedded.server.stop();
    }
  }, 120_000);

  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function emptyDatabase() {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    return database.url;
  }

  it("copies every table, and the server started on PostgreSQL serves the same data", async () => {
    const url = await emptyDatabase();
    const moved = await svcDb("move", "--from", dataDir, "--to", url, "--json");
    expect(moved).toMatchObject({ status: EXIT.ok, err: "" });
    const report = JSON.parse(moved.out) as { tables: Record<string, number>; rows: number };
    expect(report.tables).toMatchObject({
      identities: 2,
      one_time_prekeys: 9,
      inbox_registrations: 2,
      inbox_blobs: 8,
      kt_sths: 3,
    });
    expect(Object.keys(report.tables).indexOf("identities")).toBeLessThan(
      Object.keys(report.tables).indexOf("one_time_prekeys"),
    );

    const onPostgres = await startOn(dataDir, url);
    cleanups.push(() => onPostgres.server.stop());
    expect(onPostgres.server.svc.services.storage.kind).toBe("postgres");
    expect(await served(onPostgres)).toEqual(before);
    // The queue goes on where it was: the next one-time prekey, everything else the same.
    const bundleAfter = await onPostgres.get(`/v1/keys/bundle/${alice.address}`);
    expect(bundleAfter).toEqual({
      ...bundleBefore,
      oneTimePreKey: oneTimePreKeys([2])[0],
    });
    // Sequences moved too: new one-time prekeys of alice take ids her queue does not hold.
    const replenish = replenishBody(alice, Date.now(), oneTimePreKeys([6, 7, 8]));
    expect((await onPostgres.post("/v1/keys/replenish", replenish)).status).toBe(200);
    const deposit = await onPostgres.inbox.deposit(alice.address, sender, envelope(4));
    expect(deposit.status).toBe(200);
  });

  it("refuses a directory the server has open", async () => {
    const embedded = await startOn(dataDir);
    cleanups.push(() => embedded.server.stop());
    const { status, err } = await svcDb("move", "--from", dataDir, "--to", await emptyDatabase());
    expect(status).toBe(EXIT.refused);
    expect(err).toContain("stop the server first");
  });

  it("refuses a target that holds rows, and leaves it as it was", async () => {
    const url = await emptyDatabase();
    expect((await svcDb("move", "--from", dataDir, "--to", url)).status).toBe(EXIT.ok);
    const again = await svcDb("move", "--from", dataDir, "--to", url);
    expect(again.status).toBe(EXIT.refused);
    expect(again.err).toMatch(/^svc-db: error: the target's table "\w+" holds rows$/);
    const target = await openStorage({ databaseUrl: url, poolSize: 1, migrations });
    cleanups.push(() => target.close());
    const [row] = await executeRows<{ n: string }>(
      target.db,
      sql`select count(*)::text as n from identities`,
    );
    expect(row?.n).toBe("2");
  });

  it("commits nothing when a table's row count comes out different", async () => {
    const url = await emptyDatabase();
    const target = await openStorage({ databaseUrl: url, poolSize: 1, migrations });
    cleanups.push(() => target.close());
    await target.db.execute(sql`create function drop_row() returns trigger language plpgsql
      as $$ begin return null; end $$`);
    await target.db.execute(sql`create trigger drop_blobs before insert on inbox_blobs
      for each row execute function drop_row()`);
    const { status, err } = await svcDb("move", "--from", dataDir, "--to", url, "--json");
    expect(status).toBe(EXIT.refused);
    expect(JSON.parse(err)).toMatchObject({ error: "COUNT_MISMATCH" });
    const [row] = await executeRows<{ n: string }>(
      target.db,
      sql`select count(*)::text as n from identities`,
    );
    expect(row?.n).toBe("0");
  });
});
