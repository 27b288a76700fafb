import type { SQL } from "drizzle-orm";
import type { Database } from "./storage.js";

type PostgresJsClient = {
  unsafe(text: string, params: unknown[], options: { prepare: boolean }): Promise<unknown[]>;
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
  const client = (db as unknown as { $client: PostgresJsClient }).$client;
  return (await client.unsafe(text, [...params], { prepare: true })) as Row[];
}

/** Rows of a statement run with `db.execute` (also inside a transaction). */
export async function executeRows<Row>(db: Database, query: SQL): Promise<Row[]> {
  return (await db.execute(query)) as unknown as Row[];
}

/** postgres.js hands back bytea as Buffers: callers get plain Uint8Array views of the same bytes. */
export function plainBytes(value: Uint8Array): Uint8Array {
  return value.constructor === Uint8Array
    ? value
    : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
}
