import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import type { LegacyTag } from "./legacy.js";
import type { PackageMigrations } from "./migrations.js";
import { startPgliteThread } from "./pglite-channel.js";
import { pgliteSocket } from "./pglite-socket.js";
import { openStorage, pgliteStorage, type Storage } from "./storage.js";
import { createTestDatabase, droppedOnClose } from "./test-database.js";

/** @svc/db's combined drizzle folder as 4.7 shipped it (SQL and journal; no snapshots). */
const legacyFolder = fileURLToPath(new URL("../fixtures/legacy-0008", import.meta.url));

export interface LegacyTestStorageOptions {
  kind: "pglite" | "postgres";
  /** The last of the combined migrations that the old openStorage had applied. */
  through: LegacyTag;
  /** Puts rows into the old layout, before the database is opened as today. */
  fill: (sql: postgres.Sql) => Promise<void>;
  /** What the database is then opened with. */
  migrations: readonly PackageMigrations[];
}

/**
 * A test database made by @svc/db 4.7: drizzle's migrator applies the combined migrations through
 * `through` exactly as that version's openStorage did, `fill` writes to it, and then openStorage
 * opens it with `migrations`. Closing the storage drops a PostgreSQL database.
 */
export async function createLegacyTestStorage(options: LegacyTestStorageOptions): Promise<Storage> {
  const folder = await legacyFolderThrough(options.through);
  try {
    if (options.kind === "pglite") return await legacyPglite(folder, options);
    return await legacyPostgres(folder, options);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

async function legacyPglite(folder: string, options: LegacyTestStorageOptions): Promise<Storage> {
  const thread = await startPgliteThread();
  // postgres.js takes any stream here (its README documents `socket`; its types omit it).
  const client = postgres({
    ...{ socket: () => pgliteSocket(thread, () => {}) },
    max: 1,
    onnotice: () => {},
  });
  let dump: Uint8Array;
  try {
    await migrate(drizzle(client), { migrationsFolder: folder });
    await options.fill(client);
    dump = await thread.dump();
  } finally {
    await client.end();
    await thread.close();
  }
  return pgliteStorage(await startPgliteThread({ loadDataDir: dump }), options.migrations);
}

async function legacyPostgres(folder: string, options: LegacyTestStorageOptions): Promise<Storage> {
  const database = await createTestDatabase();
  try {
    const client = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      await migrate(drizzle(client), { migrationsFolder: folder });
      await options.fill(client);
    } finally {
      await client.end();
    }
    const storage = await openStorage({
      databaseUrl: database.url,
      migrations: options.migrations,
    });
    return droppedOnClose(storage, database.drop);
  } catch (error) {
    await database.drop();
    throw error;
  }
}

/** A copy of the legacy folder whose journal ends at `through`. */
async function legacyFolderThrough(through: LegacyTag): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "svc-legacy-"));
  await cp(legacyFolder, folder, { recursive: true });
  const journalPath = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(await readFile(journalPath, "utf8")) as {
    entries: { tag: string }[];
  };
  const last = journal.entries.findIndex((entry) => entry.tag === through);
  journal.entries = journal.entries.slice(0, last + 1);
  await writeFile(journalPath, JSON.stringify(journal));
  return folder;
}
