import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStorage, type PackageMigrations, type StorageOptions } from "@svc/db";
import { createTestDatabase, hasTestPostgres } from "@svc/db/testing";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { createPrekeyDirectory } from "./directory.js";
import { prekeysMigrations } from "./schema.js";
import { kemPreKey, kemPreKeys, registration } from "./test-support/identities.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const kinds = hasTestPostgres() ? (["pglite", "postgres"] as const) : (["pglite"] as const);

/** The package's migrations as they were before the KEM prekeys: its first two files. */
async function beforeKem(): Promise<PackageMigrations> {
  const folder = await mkdtemp(join(tmpdir(), "svc-prekeys-migrations-"));
  cleanups.push(() => rm(folder, { recursive: true, force: true }));
  await mkdir(folder, { recursive: true });
  for (const file of ["0000_identities.sql", "0001_queue_pk.sql"]) {
    await copyFile(join(prekeysMigrations.folder, file), join(folder, file));
  }
  return { name: prekeysMigrations.name, folder };
}

/** Where the database lives across the two openings. */
async function location(kind: "pglite" | "postgres"): Promise<Partial<StorageOptions>> {
  if (kind === "postgres") {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    return { databaseUrl: database.url };
  }
  const dataDir = await mkdtemp(join(tmpdir(), "svc-prekeys-data-"));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  return { dataDir };
}

describe.each(kinds)("the KEM prekeys migration on %s", (kind) => {
  it("applies to a directory holding identities and queues, which keep serving as before", async () => {
    const where = await location(kind);
    const old = await openStorage({ ...where, migrations: [await beforeKem()] });
    await old.db.execute(sql`
      insert into identities values ('alice', '\\x01', '\\x02', 7, '\\x03', '\\x04', 10, 11)`);
    await old.db.execute(sql`
      insert into one_time_prekeys (address, key_id, public_key)
      values ('alice', 1, '\\x05'), ('alice', 2, '\\x06')`);
    await old.close();

    const storage = await openStorage({ ...where, migrations: [prekeysMigrations] });
    cleanups.push(() => storage.close());
    const directory = createPrekeyDirectory(storage.db);
    expect(await directory.countPrekeys("alice")).toEqual({ count: 2, kemCount: 0 });
    expect(await directory.fetchBundle("alice")).toStrictEqual({
      address: "alice",
      identitySigningKey: Uint8Array.of(1),
      identityDHKey: Uint8Array.of(2),
      signedPreKey: { keyId: 7, publicKey: Uint8Array.of(3), signature: Uint8Array.of(4) },
      oneTimePreKey: { keyId: 1, publicKey: Uint8Array.of(5) },
    });

    // A new identity gets KEM keys; an identity row cannot hold a partial last-resort key.
    await directory.registerIdentity(
      {
        ...registration("bob", "b"),
        kemLastResortPreKey: kemPreKey("b", 9),
        kemPreKeys: kemPreKeys("b", [1]),
      },
      1000,
    );
    expect((await directory.fetchBundle("bob"))?.kemPreKey?.keyId).toBe(1);
    const partial = await storage.db
      .execute(sql`update identities set kem_last_resort_key_id = 3 where address = 'alice'`)
      .then(
        () => undefined,
        (error: Error) => error,
      );
    expect(String(partial?.cause)).toMatch(/identities_kem_last_resort_whole/);
  }, 60_000);
});
