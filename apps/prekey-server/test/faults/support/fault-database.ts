import { createTestDatabase, hasTestPostgres } from "@svc/db/testing";
import { postgresBinaries, startPrivatePostgres } from "./private-postgres.js";
import type { Closer } from "./server-process.js";

/** True when a PostgreSQL database can be had: TEST_DATABASE_URL, or server binaries. */
export const canHavePostgres = (): boolean => hasTestPostgres() || postgresBinaries() !== undefined;

/**
 * The URL of an empty PostgreSQL database for several server processes to share: a new database
 * on TEST_DATABASE_URL's server, else a private cluster.
 */
export async function postgresDatabase(closers: Closer[]): Promise<string> {
  if (hasTestPostgres()) {
    const database = await createTestDatabase();
    closers.push(() => database.drop());
    return database.url;
  }
  const bin = postgresBinaries();
  if (bin === undefined) throw new Error("no PostgreSQL: set TEST_DATABASE_URL or SVC_PG_BIN");
  const cluster = await startPrivatePostgres(bin);
  closers.push(() => cluster.destroy());
  return cluster.url;
}
