import type { SQL } from "drizzle-orm";
import type { Database } from "./storage.js";

type PostgresJsClient = {
  unsafe(text: string, params: unknown[], options: { prepare: boolean }): Promise<unknown[]>;
};
type PgliteClient = { query(text: string, params: unknown[]): Promise<{ rows: unknown[] }> };

/**
 * Runs `text` (placeholders $1, $2, ...) as a prepared statement on PostgreSQL, so that the server
 * plans it once per connection rather than on every call, which matters for statements that
 * cost more to plan than to run. On PGlite it runs as an ordinary query. Not for transactions.
 */
export async function preparedRows<Row>(
  db: Database,
  text: string,
  params: readonly unknown[],
): Promise<Row[]> {
  const client = (db as unknown as { $client: PostgresJsClient | PgliteClient }).$client;
  if ("unsafe" in client)
    return (await client.unsafe(text, [...params], { prepare: true })) as Row[];
  return (await client.query(text, [...params])).rows as Row[];
}

/** Rows of a statement run with `db.execute` (also inside a transaction), whichever the driver. */
export async function executeRows<Row>(db: Database, query: SQL): Promise<Row[]> {
  const result = (await db.execute(query)) as unknown as Row[] | { rows: Row[] };
  return Array.isArray(result) ? result : result.rows;
}
