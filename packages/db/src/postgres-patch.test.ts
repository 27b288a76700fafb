import { sql as statement } from "drizzle-orm";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { startPgliteThread } from "./pglite-channel.js";
import { pgliteSocket } from "./pglite-socket.js";
import { executeRows } from "./rows.js";
import { type Database, openStorage, type Storage } from "./storage.js";
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
    await onPoolOfOne(async (storage, admin) => {
      let late: Promise<unknown> | undefined;
      const transaction = storage.db.transaction(async (tx) => {
        await admin`select pg_terminate_backend(${await backendPid(tx)}::int)`;
        // The connection's close arrives while the transaction waits on something else.
        await new Promise((resolve) => setTimeout(resolve, 200));
        late = outcome(tx.execute(statement`select 1`));
        await late;
      });
      // postgres.js fails the transaction as soon as its connection closes.
      await expect(transaction).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
      await until(() => late !== undefined);
      expect(await late).toMatchObject({ cause: { code: "CONNECTION_CLOSED" } });
      expect(await executeRows(storage.db, statement`select 2 as n`)).toEqual([{ n: 2 }]);
    });
  });

  it("never runs a closed transaction's statement in the session its connection opens next", async () => {
    await onPoolOfOne(async (storage, admin) => {
      await admin`create table t (n int)`;
      let waiting: Promise<unknown> | undefined;
      let late: Promise<unknown> | undefined;
      const transaction = storage.db.transaction(async (tx) => {
        const pid = await backendPid(tx);
        // Waits for the pool's one connection, which reconnects for it once the backend is gone.
        waiting = executeRows(storage.db, statement`select 2 as n`);
        await admin`select pg_terminate_backend(${pid}::int)`;
        await waiting;
        late = outcome(tx.execute(statement`insert into t values (1)`));
        await late;
      });
      await expect(transaction).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
      await until(() => late !== undefined);
      expect(await waiting).toEqual([{ n: 2 }]);
      expect(await late).toMatchObject({ cause: { code: "CONNECTION_CLOSED" } });
      expect(await admin`select count(*)::int as n from t`).toEqual([{ n: 0 }]);
    });
  });

  it("survives a backend ended mid-statement in a transaction, and the next query is answered", async () => {
    await onPoolOfOne(async (storage, admin) => {
      let pid: number | undefined;
      const transaction = storage.db.transaction(async (tx) => {
        pid = await backendPid(tx);
        await tx.execute(statement`select pg_sleep(5)`);
      });
      await until(() => pid !== undefined);
      await admin`select pg_terminate_backend(${pid ?? 0}::int)`;
      // The backend's FATAL error comes first; postgres.js's own ROLLBACK must not outlive it.
      await expect(transaction).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
      expect(await executeRows(storage.db, statement`select 3 as n`)).toEqual([{ n: 3 }]);
    });
  });
});

/**
 * A new database with a storage pool of one connection (were a closed one lost to the pool, the
 * next query would wait forever) and a connection of its own to end the other's backend.
 */
async function onPoolOfOne(
  run: (storage: Storage, admin: postgres.Sql) => Promise<void>,
): Promise<void> {
  const database = await createTestDatabase();
  const storage = await openStorage({ databaseUrl: database.url, poolSize: 1, migrations: [] });
  const admin = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    await run(storage, admin);
  } finally {
    await admin.end();
    await storage.close();
    await database.drop();
  }
}

async function backendPid(db: Database): Promise<number> {
  const [row] = await executeRows<{ pid: number }>(db, statement`select pg_backend_pid() as pid`);
  return row?.pid ?? 0;
}

/** Settles with the value or the error, whichever `promise` gives. */
function outcome(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => value,
    (error: unknown) => error,
  );
}
