import type { Database, Storage } from "@svc/db";
import { createTestStorage, hasTestPostgres } from "@svc/db/testing";
import type { SignedTreeHead } from "@svc/kt-verify";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { IdentityKeys } from "./identity-keys.js";
import { KtLog } from "./kt-log.js";
import { ktLogMigrations } from "./schema.js";
import { createSthSigner } from "./signer.js";
import { identityChange, key32, vrfSecretKey } from "./test-support/keys.js";

const migrations = [ktLogMigrations];
beforeAll(async () => (await createTestStorage({ migrations })).close());

const signer = createSthSigner(key32(42));
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const kinds = hasTestPostgres() ? (["pglite", "postgres"] as const) : (["pglite"] as const);

describe.each(kinds)("KtLog with the directory's current identities, on %s", (kind) => {
  /** A log whose directory holds `directory` (address → the n of identityChange), and what it read. */
  async function openLog(directory: Map<string, number>) {
    const storage: Storage = await createTestStorage({ migrations, kind });
    cleanups.push(() => storage.close());
    const published: SignedTreeHead[] = [];
    const reads: Array<{ db: Database; addresses: readonly string[] }> = [];
    const log = await KtLog.open({
      vrfSecretKey,
      storage,
      signer,
      onPublish: (sth) => published.push(sth),
      async currentIdentities(db, addresses) {
        reads.push({ db, addresses });
        const held = new Map<string, IdentityKeys>();
        for (const address of addresses) {
          const n = directory.get(address);
          if (n !== undefined) held.set(address, identityChange(address, n));
        }
        return held;
      },
    });
    return { log, published, reads, storage };
  }

  it("logs a change that is the stored state and passes over one that is not, signing nothing", async () => {
    const directory = new Map([["alice", 2]]);
    const { log, published } = await openLog(directory);
    const head = await log.latestSth();
    published.length = 0;
    expect(await log.append(identityChange("alice", 1))).toEqual({
      leafIndex: undefined,
      sth: head,
      superseded: true,
    });
    expect(published).toEqual([]);
    const logged = await log.append(identityChange("alice", 2));
    expect(logged).toMatchObject({ leafIndex: 0 });
    expect(await log.append(identityChange("alice", 1))).toEqual({
      leafIndex: 0,
      sth: logged.sth,
      superseded: true,
    });
    expect(published).toEqual([logged.sth]);
    expect(await log.proofShowing("alice", identityChange("alice", 2))).toBeDefined();
  });

  it("logs a tombstone only for an address the directory no longer holds", async () => {
    const directory = new Map([["alice", 1]]);
    const { log } = await openLog(directory);
    await log.append(identityChange("alice", 1));
    expect(await log.append({ kind: "tombstone", address: "alice" })).toMatchObject({
      leafIndex: 0,
      superseded: true,
    });
    directory.delete("alice");
    expect(await log.append({ kind: "tombstone", address: "alice" })).toMatchObject({
      leafIndex: 1,
    });
    expect((await log.proofFor("alice")).body.type).toBe("tombstone");
  });

  it("judges a batch's changes against one read of the directory, on the append's own database", async () => {
    const directory = new Map([
      ["alice", 1],
      ["bob", 5],
    ]);
    const { log, reads, storage } = await openLog(directory);
    const answers = await Promise.all([
      log.append(identityChange("alice", 1)),
      log.append(identityChange("alice", 3)),
      log.append(identityChange("bob", 5)),
      log.append(identityChange("alice", 1)),
    ]);
    expect(answers.map((answer) => answer.superseded ?? false)).toEqual([
      false,
      true,
      false,
      false,
    ]);
    expect(answers.map((answer) => answer.leafIndex)).toEqual([0, 0, 1, 2]);
    // The first append runs alone; the three that waited for it are one batch.
    expect(reads.map((read) => [...read.addresses].sort())).toEqual([["alice"], ["alice", "bob"]]);
    // On PostgreSQL, inside the transaction that holds the sequencer lock.
    for (const read of reads) expect(read.db === storage.db).toBe(kind === "pglite");
  });
});
