import type { PackageMigrations } from "./migrations.js";
import { startPgliteThread } from "./pglite-channel.js";
import { openStorage, pgliteStorage, type Storage } from "./storage.js";
import { createTestDatabase, droppedOnClose } from "./test-database.js";

export { createLegacyTestStorage, type LegacyTestStorageOptions } from "./legacy-testing.js";
export { describeSchema, type SchemaDescription } from "./schema-description.js";
export { createTestDatabase };

export interface TestStorageOptions {
  /** The packages whose tables the test uses, in their migration order. */
  migrations: readonly PackageMigrations[];
  kind?: "pglite" | "postgres";
}

/**
 * A fresh, migrated, empty database for one test: a new in-memory PGlite, or, when
 * TEST_DATABASE_URL is set, a new database created on that PostgreSQL server and dropped on close.
 */
export async function createTestStorage(options: TestStorageOptions): Promise<Storage> {
  const kind = options.kind ?? (hasTestPostgres() ? "postgres" : "pglite");
  if (kind === "pglite") {
    const thread = await startPgliteThread({ loadDataDir: await template(options.migrations) });
    return pgliteStorage(thread, options.migrations);
  }
  const database = await createTestDatabase();
  const storage = await openStorage({
    databaseUrl: database.url,
    poolSize: 20,
    migrations: options.migrations,
  });
  return droppedOnClose(storage, database.drop);
}

/** Migrated dumps by the folders they were migrated with. */
const templates = new Map<string, Promise<Uint8Array>>();

/** Migrating a new PGlite takes seconds; starting one from a migrated dump, a fraction of that. */
function template(migrations: readonly PackageMigrations[]): Promise<Uint8Array> {
  const key = migrations.map((m) => m.folder).join("\n");
  let dump = templates.get(key);
  if (!dump) {
    dump = (async () => {
      const thread = await startPgliteThread();
      const storage = await pgliteStorage(thread, migrations);
      try {
        return await thread.dump();
      } finally {
        await storage.close();
      }
    })();
    templates.set(key, dump);
  }
  return dump;
}

/** True when a real PostgreSQL is available to tests. */
export const hasTestPostgres = (): boolean => Boolean(process.env.TEST_DATABASE_URL);

/** Resolves once `condition` holds, polling every few milliseconds; fails after `timeoutMs`. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
