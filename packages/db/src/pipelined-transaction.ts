import type { SQL } from "drizzle-orm";
import { PostgresJsSession, PostgresJsTransaction } from "drizzle-orm/postgres-js";
import type { Sql } from "postgres";
import type { Database } from "./storage.js";

/** What a pipelined transaction's work hands back: its result and its last statement, unsent. */
export interface TransactionEnd<T> {
  result: T;
  /** The transaction's last statement, of fixed text (it runs prepared); COMMIT follows it. */
  last: SQL;
}

/**
 * One transaction in as few round trips as its statements allow. drizzle's `transaction` waits
 * for BEGIN's answer before the first statement and for the last statement's answer before
 * COMMIT: two round trips that hold the connection (on the embedded database, the only one)
 * while nothing runs. Here BEGIN goes out ahead of the first statements `work` sends on `tx`,
 * and COMMIT right behind the statement `work` hands back as `last`, on a connection reserved
 * for the transaction. What `work` wrote is rolled back when it throws; when `last` fails, COMMIT
 * ends the aborted transaction as a ROLLBACK. Not for use inside another transaction.
 */
export async function pipelinedTransaction<T>(
  db: Database,
  work: (tx: Database) => Promise<TransactionEnd<T>>,
): Promise<T> {
  const { dialect } = db as unknown as DrizzleInternals;
  const reserved = await (db as unknown as { $client: Sql }).$client.reserve();
  try {
    const begun = reserved.unsafe("begin").execute();
    // Awaited below; a failure here must not surface as an unhandled rejection meanwhile.
    begun.catch(() => {});
    let end: TransactionEnd<T>;
    try {
      end = await work(transactionOn(db, reserved));
      // Answered long since (before work's first answer): had BEGIN failed, work's statements
      // ran outside a transaction, and its last one must not follow them.
      await begun;
    } catch (error) {
      await reserved.unsafe("rollback").catch(() => {});
      throw error;
    }
    const { sql: text, params } = dialect.sqlToQuery(end.last);
    // Sent here, in this order, in one write: postgres.js sends a query when it is executed.
    const last = reserved.unsafe(text, params as never[], { prepare: true }).execute();
    const commit = reserved.unsafe("commit").execute();
    const [lastDone, committed] = await Promise.allSettled([last, commit]);
    if (lastDone.status === "rejected") throw lastDone.reason;
    if (committed.status === "rejected") throw committed.reason;
    return end.result;
  } finally {
    reserved.release();
  }
}

/** The parts of drizzle's database object its own transactions are built from. */
interface DrizzleInternals {
  dialect: ConstructorParameters<typeof PostgresJsSession>[1];
  session: {
    schema: ConstructorParameters<typeof PostgresJsSession>[2];
    options: ConstructorParameters<typeof PostgresJsSession>[3];
  };
}

/**
 * A drizzle transaction object over `connection`, built as drizzle's own `transaction` builds
 * one over the connection postgres.js's `begin` hands it, which sends the same queries.
 */
function transactionOn(db: Database, connection: Sql): Database {
  const { dialect, session } = db as unknown as DrizzleInternals;
  const own = new PostgresJsSession(connection, dialect, session.schema, session.options);
  type TransactionSession = ConstructorParameters<typeof PostgresJsTransaction>[1];
  return new PostgresJsTransaction(
    dialect,
    own as unknown as TransactionSession,
    session.schema,
  ) as unknown as Database;
}
