import { randomBytes } from "node:crypto";
import postgres from "postgres";
import type { Storage } from "./storage.js";

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

/** `storage`, whose close also drops its test database. */
export function droppedOnClose(storage: Storage, drop: () => Promise<void>): Storage {
  return {
    ...storage,
    async close() {
      await storage.close();
      await drop();
    },
  };
}

function requireTestDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("TEST_DATABASE_URL is not set");
  return url;
}
