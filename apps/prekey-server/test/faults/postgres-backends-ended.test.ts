import { executeRows, openStorage } from "@svc/db";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { canHavePostgres, postgresDatabase } from "./support/fault-database.js";
import { expectEachLogged, registerIdentity } from "./support/identity-registrations.js";
import { type Closer, runClosers, startServerProcess } from "./support/server-process.js";
import { sleep } from "./support/wait.js";

const closers: Closer[] = [];
afterAll(() => runClosers(closers));

const WORKERS = 4;
const KILL_ROUNDS = 8;
const KILL_EVERY_MS = 250;

/**
 * Every backend of the server ended (pg_terminate_backend) again and again while new identities
 * register, each a prekey transaction and a key-transparency append transaction: connections
 * close with transactions open, idle or mid-statement. docs/operations.md, "Faults".
 */
describe.runIf(canHavePostgres())("PostgreSQL backends ended under registrations", () => {
  it("stays up, answers each register 200 or 503, and logs every acknowledged identity", async () => {
    const url = await postgresDatabase(closers);
    const server = await startServerProcess(closers, { DATABASE_URL: url, SVC_RATE_LIMIT: "off" });
    // Its own connection, which ends the others.
    const admin = await openStorage({ databaseUrl: url, poolSize: 1, migrations: [] });
    closers.push(() => admin.close());

    const outcomes: Array<{ address: string; status: number }> = [];
    let registering = true;
    let next = 0;
    const register = async () => {
      while (registering) {
        const address = `ended-${next++}:1`;
        outcomes.push({ address, status: await registerIdentity(server.url, address) });
      }
    };
    const workers = Array.from({ length: WORKERS }, register);
    let ended = 0;
    for (let round = 0; round < KILL_ROUNDS; round++) {
      await sleep(KILL_EVERY_MS);
      const rows = await executeRows<{ ended: boolean }>(
        admin.db,
        sql`select pg_terminate_backend(pid) as ended from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid()`,
      );
      ended += rows.filter((row) => row.ended === true).length;
    }
    await sleep(500);
    registering = false;
    await Promise.all(workers);

    const acknowledged = outcomes.filter((o) => o.status === 200);
    console.info(
      JSON.stringify({ registers: outcomes.length, acknowledged: acknowledged.length, ended }),
    );
    expect(server.alive()).toBe(true);
    expect(ended).toBeGreaterThanOrEqual(KILL_ROUNDS);
    for (const outcome of outcomes)
      expect([200, 503], JSON.stringify(outcome)).toContain(outcome.status);
    expect(outcomes.some((o) => o.status === 503)).toBe(true);
    // Registered after the last round: the connections came back.
    expect(outcomes.slice(-WORKERS).every((o) => o.status === 200)).toBe(true);
    // An acknowledged register was logged before it answered: its bundle proves it.
    await expectEachLogged(
      server.url,
      acknowledged.map((o) => o.address),
    );
    const internal = server
      .logs()
      .filter((line) => line.status === 500 || line.message === "unhandled error");
    expect(internal).toEqual([]);
  }, 90_000);
});
