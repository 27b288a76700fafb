import type { SQL } from "drizzle-orm";
import type { Database } from "./storage.js";

type PostgresJsClient = {
  unsafe(
    text: string,
    params: unknown[],
    options: { prepare: boolean; simple?: boolean },
  ): Promise<unknown[]>;
};

/**
 * Runs `text` (placeholders $1, $2, ...) as a prepared statement, so that the database plans it
 * once per connection rather than on every call, which matters for statements that cost more to
 * plan than to run. Not for transactions.
 */
export async function preparedRows<Row>(
  db: Database,
  text: string,
  params: readonly unknown[],
): Promise<Row[]> {
  return runPrepared<Row>((db as unknown as { $client: PostgresJsClient }).$client, text, [
    ...params,
  ]);
}

/** Rows of a statement run with `db.execute` (also inside a transaction). */
export async function executeRows<Row>(db: Database, query: SQL): Promise<Row[]> {
  return (await db.execute(query)) as unknown as Row[];
}

/** The parts of drizzle's database (and transaction) objects that its own queries use. */
interface DrizzleInternals {
  dialect: { sqlToQuery(query: SQL): { sql: string; params: unknown[] } };
  session: { client: PostgresJsClient };
}

/**
 * Rows of `query` run as a prepared statement on `db`'s connection: a transaction's own when
 * `db` is one, unlike {@link preparedRows}. `db.execute` sends a statement with parameters as
 * two exchanges (parse and describe, then bind and execute), one without as a simple query, and
 * has either parsed and planned each time; prepared, it is one exchange after the first. For
 * statements of fixed text only: each text stays prepared on its connection.
 */
export async function executePreparedRows<Row>(db: Database, query: SQL): Promise<Row[]> {
  const { dialect, session } = db as unknown as DrizzleInternals;
  const { sql: text, params } = dialect.sqlToQuery(query);
  return runPrepared<Row>(session.client, text, params);
}

/**
 * A named prepared statement even without parameters: postgres.js sends a statement without any
 * as a simple query, parsed and planned every time, unless told otherwise.
 */
async function runPrepared<Row>(
  client: PostgresJsClient,
  text: string,
  params: unknown[],
): Promise<Row[]> {
  return (await client.unsafe(text, params, { prepare: true, simple: false })) as Row[];
}

/** postgres.js hands back bytea as Buffers: callers get plain Uint8Array views of the same bytes. */
export function plainBytes(value: Uint8Array): Uint8Array {
  return value.constructor === Uint8Array
    ? value
    : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
}
