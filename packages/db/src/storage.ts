import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { pgliteByteaCodec } from "./pglite-bytea.js";
import * as schema from "./schema/index.js";

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type StorageKind = "pglite" | "postgres";

/** A database handle plus what the app needs around it: liveness, notifications, shutdown. */
export interface Storage {
  readonly kind: StorageKind;
  readonly db: Database;
  /**
   * How many statements of one batcher (createBatcher) are worth running at once: 1 on PGlite,
   * which runs one statement at a time, 2 on PostgreSQL, leaving the rest of the pool to others.
   */
  readonly batchConcurrency: number;
  ping(): Promise<void>;
  /**
   * Subscribes to a NOTIFY channel; resolves to an unsubscribe function. `onListen` runs each
   * time the subscription is (re)established, so a listener can re-read what it may have missed.
   */
  listen(
    channel: string,
    onPayload: (payload: string) => void,
    onListen?: () => void,
  ): Promise<() => Promise<void>>;
  /** Sends one notification per payload, in one statement. */
  notify(channel: string, payloads: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export interface StorageOptions {
  /** postgres:// URL; when absent an embedded PGlite database is used. */
  databaseUrl?: string | undefined;
  /** Directory for the embedded database; when absent PGlite runs in memory. */
  dataDir?: string | undefined;
  /** Connection pool size for PostgreSQL. */
  poolSize?: number;
}

const migrationsFolder = fileURLToPath(new URL("../drizzle", import.meta.url));
const MIGRATION_LOCK_ID = 0x5356_4301;
const NOTIFY_EACH = "select pg_notify($1, payload) from unnest($2::text[]) as payload";

export async function openStorage(options: StorageOptions): Promise<Storage> {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.poolSize ?? 10)
    : openPglite(options.dataDir);
}

async function openPglite(dataDir: string | undefined): Promise<Storage> {
  let location: string | undefined;
  if (dataDir) {
    location = join(dataDir, "pglite");
    await mkdir(location, { recursive: true });
  }
  return pgliteStorage(await migratedPglite(location));
}

/** Opens (in memory when `location` is absent) and migrates an embedded database. */
export async function migratedPglite(location?: string): Promise<PGlite> {
  const client = new PGlite(location, pgliteByteaCodec);
  await migratePglite(drizzlePglite(client), { migrationsFolder });
  return client;
}

/** Wraps an open, migrated PGlite instance. */
export function pgliteStorage(client: PGlite): Storage {
  const db = drizzlePglite(client, { schema });
  return {
    kind: "pglite",
    db: db as unknown as Database,
    batchConcurrency: 1,
    async ping() {
      await client.query("select 1");
    },
    async listen(channel, onPayload, onListen) {
      const unlisten = await client.listen(channel, onPayload);
      onListen?.();
      return () => unlisten();
    },
    async notify(channel, payloads) {
      await client.query(NOTIFY_EACH, [channel, payloads]);
    },
    async close() {
      if (!client.closed) await client.close();
    },
  };
}

async function openPostgres(url: string, poolSize: number): Promise<Storage> {
  await migrateUnderLock(url);
  const client = postgres(url, { max: poolSize, onnotice: () => {}, connect_timeout: 10 });
  const db = drizzlePostgres(client, { schema });
  return {
    kind: "postgres",
    db: db as unknown as Database,
    batchConcurrency: 2,
    async ping() {
      await client`select 1`;
    },
    async listen(channel, onPayload, onListen) {
      const { unlisten } = await client.listen(channel, onPayload, onListen);
      return unlisten;
    },
    async notify(channel, payloads) {
      await client.unsafe(NOTIFY_EACH, [channel, [...payloads]], { prepare: true });
    },
    async close() {
      await client.end({ timeout: 5 });
    },
  };
}

/** Several instances may start at once: one runs the migrations, the others wait for it. */
async function migrateUnderLock(url: string): Promise<void> {
  const client = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    await migratePostgres(drizzlePostgres(client), { migrationsFolder });
    await client`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
  } finally {
    await client.end({ timeout: 5 });
  }
}
