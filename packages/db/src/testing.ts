import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { startPgliteThread } from "./pglite-channel.js";
import { openStorage, pgliteStorage, type Storage } from "./storage.js";

/**
 * A fresh, migrated, empty database for one test: a new in-memory PGlite, or, when
 * TEST_DATABASE_URL is set, a new database created on that PostgreSQL server and dropped on close.
 */
export async function createTestStorage(
  options: { kind?: "pglite" | "postgres" } = {},
): Promise<Storage> {
  const kind = options.kind ?? (process.env.TEST_DATABASE_URL ? "postgres" : "pglite");
  if (kind === "pglite") {
    return pgliteStorage(await startPgliteThread({ loadDataDir: await template() }));
  }
  return createPostgresTestStorage(requireTestDatabaseUrl());
}

let migrated: Promise<Uint8Array> | undefined;

/** Migrating a new PGlite takes seconds; starting one from a migrated dump, a fraction of that. */
function template(): Promise<Uint8Array> {
  migrated ??= (async () => {
    const thread = await startPgliteThread();
    const storage = await pgliteStorage(thread);
    try {
      return await thread.dump();
    } finally {
      await storage.close();
    }
  })();
  return migrated;
}

/** True when a real PostgreSQL is available to tests. */
export const hasTestPostgres = (): boolean => Boolean(process.env.TEST_DATABASE_URL);

/**
 * Creates an empty database on the test server (or on `base`, a server URL benchmarks pass) and
 * returns its URL plus a function that drops it.
 */
export async function createTestDatabase(
  base: string = requireTestDatabaseUrl(),
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `svc_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin`create database ${admin(name)}`;
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const dropper = postgres(base, { max: 1, onnotice: () => {} });
      await dropper`drop database if exists ${dropper(name)} with (force)`;
      await dropper.end();
    },
  };
}

async function createPostgresTestStorage(_base: string): Promise<Storage> {
  const database = await createTestDatabase();
  const storage = await openStorage({ databaseUrl: database.url, poolSize: 20 });
  return {
    ...storage,
    async close() {
      await storage.close();
      await database.drop();
    },
  };
}

function requireTestDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("TEST_DATABASE_URL is not set");
  return url;
}

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
