import { join } from "node:path";
import { makePrivateDirectory, restrictTree } from "@svc/node-kit";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { applyMigrations, type PackageMigrations } from "./migrations.js";
import { type PgliteThread, startPgliteThread } from "./pglite-channel.js";
import { pgliteSocket } from "./pglite-socket.js";

export type Database = PgDatabase<PgQueryResultHKT>;
export type StorageKind = "pglite" | "postgres";

/** A database handle plus what the app needs around it: liveness, notifications, shutdown. */
export interface Storage {
  readonly kind: StorageKind;
  readonly db: Database;
  /**
   * How many statements of one batcher (createBatcher) are worth running at once: 1 on PGlite,
   * which has one session, 2 on PostgreSQL, leaving the rest of the pool to others.
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
  /**
   * Settles, with the reason, if the storage is broken for good: the embedded database's thread
   * ended without being closed, and every statement fails from then on. Never on PostgreSQL,
   * where postgres.js replaces a lost connection.
   */
  readonly failed: Promise<Error>;
  close(): Promise<void>;
}

export interface StorageOptions {
  /** postgres:// URL; when absent an embedded PGlite database is used. */
  databaseUrl?: string | undefined;
  /**
   * Directory for the embedded database (in its `pglite` folder); when absent PGlite runs in
   * memory. It and everything under `pglite` are made private to the process's user (0700
   * directories, 0600 files) at open and again at close; files PostgreSQL makes meanwhile are
   * as private as the process's umask makes them (the svc servers set 077).
   */
  dataDir?: string | undefined;
  /** Connection pool size for PostgreSQL. */
  poolSize?: number;
  /** The tables' packages, in the order their migrations apply (see applyMigrations). */
  migrations: readonly PackageMigrations[];
}

const MIGRATION_LOCK_ID = 0x5356_4301;
const NOTIFY_EACH = "select pg_notify($1, payload) from unnest($2::text[]) as payload";

export async function openStorage(options: StorageOptions): Promise<Storage> {
  if (options.databaseUrl) {
    return openPostgres(options.databaseUrl, options.poolSize ?? 10, options.migrations);
  }
  if (!options.dataDir) return pgliteStorage(await startPgliteThread({}), options.migrations);
  await makePrivateDirectory(options.dataDir);
  const dataDir = join(options.dataDir, "pglite");
  await makePrivateDirectory(dataDir);
  const storage = await pgliteStorage(await startPgliteThread({ dataDir }), options.migrations);
  try {
    await restrictTree(dataDir);
  } catch (error) {
    await storage.close();
    throw error;
  }
  return {
    ...storage,
    async close() {
      await storage.close();
      await restrictTree(dataDir);
    },
  };
}

/**
 * Migrates and wraps an embedded database (pglite-thread.js), reached through postgres.js like a
 * real server over one connection: the embedded database has a single session.
 */
export async function pgliteStorage(
  thread: PgliteThread,
  migrations: readonly PackageMigrations[] = [],
): Promise<Storage> {
  const listeners = new Map<string, Set<(payload: string) => void>>();
  const client = postgres({
    // postgres.js takes any stream here (its README documents `socket`; its types omit it).
    ...{
      socket: () =>
        pgliteSocket(thread, (channel, payload) => {
          for (const listener of listeners.get(channel) ?? []) listener(payload);
        }),
    },
    max: 1,
    onnotice: () => {},
  });
  try {
    await applyMigrations(client, migrations);
  } catch (error) {
    await client.end();
    await thread.close();
    throw error;
  }
  return {
    ...driverStorage("pglite", client, 1),
    failed: thread.failed,
    // One session: LISTEN on it, and the socket hands each notification to the listeners here.
    async listen(channel, onPayload, onListen) {
      let channelListeners = listeners.get(channel);
      if (!channelListeners) {
        channelListeners = new Set();
        listeners.set(channel, channelListeners);
        await client`listen ${client(channel)}`;
      }
      channelListeners.add(onPayload);
      onListen?.();
      return async () => {
        channelListeners.delete(onPayload);
        if (channelListeners.size > 0 || listeners.get(channel) !== channelListeners) return;
        listeners.delete(channel);
        await client`unlisten ${client(channel)}`;
      };
    },
    async close() {
      await client.end({ timeout: 5 });
      await thread.close();
    },
  };
}

async function openPostgres(
  url: string,
  poolSize: number,
  migrations: readonly PackageMigrations[],
): Promise<Storage> {
  await migrateUnderLock(url, migrations);
  const client = postgres(url, {
    max: poolSize,
    onnotice: () => {},
    connect_timeout: 10,
    backoff: reconnectBackoff,
  });
  return {
    ...driverStorage("postgres", client, 2),
    failed: new Promise<Error>(() => {}),
    async listen(channel, onPayload, onListen) {
      const { unlisten } = await client.listen(channel, onPayload, onListen);
      return unlisten;
    },
    async close() {
      await client.end({ timeout: 5 });
    },
  };
}

/**
 * Seconds before a connection of the pool (or the LISTEN connection) tries again after failing
 * to connect. postgres.js waits 3^n / 100 s by default, n counting the pool's failures since its
 * last successful connect, up to 20 s: a few seconds of PostgreSQL down left every query queued
 * meanwhile waiting up to 20 s, and the server away for as long after PostgreSQL was back. Here
 * at most 0.5 s: a refused connection is cheap, and both the failure (503) and the recovery come
 * at once.
 */
function reconnectBackoff(failures: number): number {
  return Math.min(0.05 * 2 ** failures, 0.5);
}

/** What both kinds share: the drizzle handle, liveness and NOTIFY through one postgres.js client. */
function driverStorage(
  kind: StorageKind,
  client: postgres.Sql,
  batchConcurrency: number,
): Omit<Storage, "listen" | "failed" | "close"> {
  return {
    kind,
    db: drizzle(client) as unknown as Database,
    batchConcurrency,
    async ping() {
      await client`select 1`;
    },
    async notify(channel, payloads) {
      await client.unsafe(NOTIFY_EACH, [channel, [...payloads]], { prepare: true });
    },
  };
}

/** Several instances may start at once: one runs the migrations, the others wait for it. */
async function migrateUnderLock(
  url: string,
  migrations: readonly PackageMigrations[],
): Promise<void> {
  const client = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    await applyMigrations(client, migrations);
    await client`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
  } finally {
    await client.end({ timeout: 5 });
  }
}
