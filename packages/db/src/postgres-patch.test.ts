import { sql as statement } from "drizzle-orm";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { startPgliteThread } from "./pglite-channel.js";
import { pgliteSocket } from "./pglite-socket.js";
import { executeRows } from "./rows.js";
import { openStorage } from "./storage.js";
import { createTestDatabase, hasTestPostgres, until } from "./testing.js";

/**
 * patches/postgres@3.4.9.patch. postgres.js 3.4.9 reserves a transaction's connection only if,
 * when BEGIN was sent, the connection could take more queries (socket not backed up, pipeline not
 * full). Otherwise BEGIN runs on a connection still shared with other queries and the transaction
 * fails (on a pool: UNSAFE_TRANSACTION; on one connection: a TypeError in sql.begin), leaving the
 * session inside the transaction it began. The embedded database's socket backs up too: it holds
 * the writes that arrive while a statement runs.
 */
describe("postgres.js as patched", () => {
  it("reserves the connection for a transaction whose BEGIN fills the pipeline", async () => {
    const thread = await startPgliteThread();
    const sql = postgres({
      // postgres.js takes both (its README documents them; its types omit them).
      ...{ socket: () => pgliteSocket(thread, () => {}), max_pipeline: 1 },
      max: 1,
      onnotice: () => {},
    });
    try {
      await sql`create table t (n int)`;
      // Sent first and still unanswered, so BEGIN fills the connection's pipeline of one.
      const ahead = sql`select 1`.execute();
      const transaction = sql.begin(async (tx) => {
        await tx`insert into t values (1)`;
        return tx`select count(*)::int as n from t`;
      });
      await ahead;
      expect(await transaction).toEqual([{ n: 1 }]);
      expect(await sql`select count(*)::int as n from t`).toEqual([{ n: 1 }]);
    } finally {
      await sql.end({ timeout: 1 });
      await thread.close();
    }
  });
});

/**
 * The same patch, for a transaction whose connection closes (the database restarted, a failover,
 * an administrator ended the backend). Unpatched, postgres.js 3.4.9 still sends what the
 * transaction sends afterwards, its own ROLLBACK included: on the closed connection the write
 * throws from a timer, outside any promise, and ends the process (porsager/postgres#1208); on a
 * connection the pool has meanwhile reopened, the statement runs in the new session, outside the
 * transaction; and the backend's last (FATAL) error fails the next query of the new session.
 * Patched, a transaction refuses every statement once its connection has closed, and a closed
 * connection keeps nothing of its session.
 */
describe.runIf(hasTestPostgres())("postgres.js as patched, on PostgreSQL", () => {
  it("refuses a transaction's statement after its connection closed, and the pool serves on", async () => {
    const database = await createTestDatabase();
    // One connection: were the closed one lost to the pool, the last query would wait forever.
    const storage = await openStorage({ databaseUrl: database.url, poolSize: 1, migrations: [] });
    const admin = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      let reportLate: (outcome: unknown) => void = () => {};
      const lateOutcome = new Promise((resolve) => {
        reportLate = resolve;
      });
      const transaction = storage.db.transaction(async (tx) => {
        const [own] = await executeRows<{ pid: number }>(
          tx,
          statement`select pg_backend_pid() as pid`,
        );
        await admin`select pg_terminate_backend(${own?.pid ?? 0}::int)`;
        // The connection's close arrives while the transaction waits on something else.
        await new Promise((resolve) => setTimeout(resolve, 200));
        try {
          await tx.execute(statement`select 1`);
          reportLate("answered");
        } catch (error) {
          reportLate(error);
        }
      });
      // postgres.js fails the transaction as soon as its connection closes.
      await expect(transaction).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
      expect(await lateOutcome).toMatchObject({ cause: { code: "CONNECTION_CLOSED" } });
      expect(await executeRows(storage.db, statement`select 2 as n`)).toEqual([{ n: 2 }]);
    } finally {
      await admin.end();
      await storage.close();
      await database.drop();
    }
  });

  it("never runs a closed transaction's statement in the session its connection opens next", async () => {
    const database = await createTestDatabase();
    const storage = await openStorage({ databaseUrl: database.url, poolSize: 1, migrations: [] });
    const admin = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      await admin`create table t (n int)`;
      let reportLate: (outcome: unknown) => void = () => {};
      const lateOutcome = new Promise((resolve) => {
        reportLate = resolve;
      });
      let waiting: Promise<unknown> = Promise.resolve();
      const transaction = storage.db.transaction(async (tx) => {
        const [own] = await executeRows<{ pid: number }>(
          tx,
          statement`select pg_backend_pid() as pid`,
        );
        // Waits for the pool's one connection, which reconnects for it once the backend is gone.
        waiting = executeRows(storage.db, statement`select 2 as n`);
        await admin`select pg_terminate_backend(${own?.pid ?? 0}::int)`;
        await waiting;
        try {
          await tx.execute(statement`insert into t values (1)`);
          reportLate("answered");
        } catch (error) {
          reportLate(error);
        }
      });
      await expect(transaction).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
      expect(await waiting).toEqual([{ n: 2 }]);
      expect(await lateOutcome).toMatchObject({ cause: { code: "CONNECTION_CLOSED" } });
      expect(await admin`select count(*)::int as n from t`).toEqual([{ n: 0 }]);
    } finally {
      await admin.end();
      await storage.close();
      await database.drop();
    }
  });

  it("survives a backend ended mid-statement in a transaction, and the next query is answered", async () => {
    const database = await createTestDatabase();
    const storage = await openStorage({ databaseUrl: database.url, poolSize: 1, migrations: [] });
    const admin = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      let pid: number | undefined;
      const transaction = storage.db.transaction(async (tx) => {
        const [own] = await executeRows<{ pid: number }>(
          tx,
          statement`select pg_backend_pid() as pid`,
        );
        pid = own?.pid;
        await tx.execute(statement`select pg_sleep(5)`);
      });
      await until(() => pid !== undefined);
      await admin`select pg_terminate_backend(${pid ?? 0}::int)`;
      // The backend's FATAL error comes first; postgres.js's own ROLLBACK must not outlive it.
      await expect(transaction).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
      expect(await executeRows(storage.db, statement`select 3 as n`)).toEqual([{ n: 3 }]);
    } finally {
      await admin.end();
      await storage.close();
      await database.drop();
    }
  });
});
