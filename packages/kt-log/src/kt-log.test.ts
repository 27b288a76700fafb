import { setTimeout as sleep } from "node:timers/promises";
import { portableEd25519 } from "@svc/canonical";
import { openStorage, type Storage } from "@svc/db";
import { createTestDatabase, createTestStorage, hasTestPostgres } from "@svc/db/testing";
import {
  decodeLeafV2,
  type KtClaim,
  type SignedTreeHead,
  sthMessage,
  verifyKtProofBody,
} from "@svc/kt-verify";
import {
  emptyMapRoot,
  emptyRoot,
  leafHash,
  MemoryTree,
  SparseMerkleMap,
  verifyConsistency,
} from "@svc/merkle";
import { vrfPublicKey } from "@svc/vrf";
import { eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { KtLogError } from "./errors.js";
import { KtLog, type KtLogOptions } from "./kt-log.js";
import { ktLeaves, ktLog, ktLogMigrations } from "./schema.js";
import { createSthSigner } from "./signer.js";
import { identityChange, indexFor, key32, loggedLeaf, vrfSecretKey } from "./test-support/keys.js";

const migrations = [ktLogMigrations];

// Migrating the first test database of a file is slow: pay it outside the tests' time limit.
beforeAll(async () => (await createTestStorage({ migrations })).close());

const signer = createSthSigner(key32(42));
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Appends take the sequencer lock on PostgreSQL and write guarded on the embedded database. */
const kinds = hasTestPostgres() ? (["pglite", "postgres"] as const) : (["pglite"] as const);
let kind: (typeof kinds)[number] = "pglite";

async function storage(): Promise<Storage> {
  const created = await createTestStorage({ migrations, kind });
  cleanups.push(() => created.close());
  return created;
}

/** A log under the test keys on a fresh database of the current kind. */
async function openLog(options: Partial<KtLogOptions> = {}): Promise<KtLog> {
  return KtLog.open({ vrfSecretKey, storage: await storage(), signer, ...options });
}

function signedBySigner(sth: SignedTreeHead): boolean {
  return portableEd25519.verify(sth.signature, sthMessage(sth), signer.publicKey);
}

/** Two addresses whose map keys share their first `bits` bits (found by search). */
function addressesSharingBits(bits: number): [string, string] {
  const seen = new Map<number, string>();
  for (let i = 0; ; i++) {
    const address = `deep${i}`;
    const key = indexFor(address);
    const prefix = ((key[0] as number) << 16) | ((key[1] as number) << 8) | (key[2] as number);
    const bucket = prefix >>> (24 - bits);
    const other = seen.get(bucket);
    if (other !== undefined) return [other, address];
    seen.set(bucket, address);
  }
}

const live = (n: number): KtClaim => ({
  type: "inclusion",
  identitySigningKey: key32(n),
  identityDHKey: key32(n + 1),
});

describe.each(kinds)("KtLog on %s", (storageKind) => {
  beforeAll(() => {
    kind = storageKind;
  });

  it("starts with a signed STH at size 0 over the empty tree and map", async () => {
    const published: number[] = [];
    const log = await openLog({
      now: () => 1000,
      onPublish: (sth) => published.push(sth.treeSize),
    });
    const sth = await log.latestSth();
    expect(sth).toMatchObject({ treeSize: 0, timestampMs: 1000 });
    expect(sth.rootHash).toEqual(emptyRoot());
    expect(sth.indexRoot).toEqual(emptyMapRoot());
    expect(sth.logId).toEqual(signer.logId);
    expect(signedBySigner(sth)).toBe(true);
    expect(published).toEqual([0]);
    expect(await log.sthAt(0)).toEqual(sth);
  });

  it("signs an STH per change whose roots are the reference log's and map's", async () => {
    const db = await storage();
    let clock = 5000;
    const log = await KtLog.open({ vrfSecretKey, storage: db, signer, now: () => clock++ });
    const tree = new MemoryTree();
    const map = new SparseMerkleMap();
    const changes = [
      identityChange("alice", 1),
      identityChange("bob", 3),
      { kind: "tombstone" as const, address: "alice" },
      identityChange("carol", 5),
      identityChange("alice", 7),
    ];
    for (const [i, change] of changes.entries()) {
      const { leafIndex, sth } = await log.append(change);
      expect(leafIndex).toBe(i);
      const leaf = (await log.leaves(i, i + 1)).leaves[0] as Uint8Array;
      tree.append(leaf);
      expect(decodeLeafV2(leaf).index).toEqual(indexFor(change.address));
      map.set(decodeLeafV2(leaf).index, leafHash(leaf));
      expect(sth.treeSize).toBe(i + 1);
      expect(sth.rootHash).toEqual(tree.root());
      expect(sth.indexRoot).toEqual(map.root());
      expect(signedBySigner(sth)).toBe(true);
      expect(await log.sthAt(i + 1)).toEqual(sth);
    }
    const timestamps = await Promise.all(
      [0, 1, 2, 3, 4, 5].map(async (n) => (await log.sthAt(n)).timestampMs),
    );
    expect(timestamps).toEqual([...timestamps].sort((a, b) => a - b));
  });

  it("proves the latest leaf of each address: inclusion, tombstone and absence", async () => {
    const log = await openLog();
    await log.append(identityChange("alice", 1));
    await log.append(identityChange("bob", 3));
    await log.append({ kind: "tombstone", address: "alice" });
    const bob = await log.proofFor("bob");
    expect(bob.body.type).toBe("inclusion");
    expect(verifyKtProofBody("bob", bob, live(3), vrfPublicKey(vrfSecretKey))).toMatchObject({
      leafIndex: 1,
    });
    const alice = await log.proofFor("alice");
    expect(
      verifyKtProofBody("alice", alice, { type: "tombstone" }, vrfPublicKey(vrfSecretKey)),
    ).toMatchObject({
      leafIndex: 2,
    });
    const carol = await log.proofFor("carol");
    expect(
      verifyKtProofBody("carol", carol, { type: "absence" }, vrfPublicKey(vrfSecretKey)).type,
    ).toBe("absence");
    expect(() => verifyKtProofBody("bob", bob, live(4), vrfPublicKey(vrfSecretKey))).toThrow(
      /not the logged ones/,
    );
    for (const proof of [bob, alice, carol]) expect(proof.sth.treeSize).toBe(3);
  });

  it("answers consistency proofs between every pair of sizes", async () => {
    const log = await openLog();
    for (let i = 0; i < 9; i++) await log.append(identityChange(`u${i}`, i));
    const sths = await Promise.all(Array.from({ length: 10 }, (_, n) => log.sthAt(n)));
    for (let from = 0; from <= 9; from++) {
      for (let to = from; to <= 9; to++) {
        const { proof, fromTreeSize, toTreeSize } = await log.consistencyProof(from, to);
        expect([fromTreeSize, toTreeSize]).toEqual([from, to]);
        const older = sths[from] as SignedTreeHead;
        const newer = sths[to] as SignedTreeHead;
        expect(verifyConsistency(from, to, older.rootHash, newer.rootHash, proof)).toBe(true);
      }
    }
    expect((await log.consistencyProof(4)).toTreeSize).toBe(9);
    await expect(log.consistencyProof(5, 4)).rejects.toMatchObject({ code: "SVC_BAD_REQUEST" });
    await expect(log.consistencyProof(1, 10)).rejects.toMatchObject({ code: "SVC_BAD_REQUEST" });
    await expect(log.sthAt(10)).rejects.toMatchObject({ code: "SVC_STH_NOT_FOUND" });
  });

  it("pages leaves and refuses ranges past the log", async () => {
    const log = await openLog({
      leavesPerRead: 4,
    });
    await Promise.all(Array.from({ length: 10 }, (_, i) => log.append(identityChange(`p${i}`, i))));
    const first = await log.leaves(0);
    expect(first.leaves).toHaveLength(4);
    expect((await log.leaves(8)).leaves).toHaveLength(2);
    expect((await log.leaves(10)).leaves).toHaveLength(0);
    expect((await log.leaves(3, 5)).leaves).toHaveLength(2);
    const tree = new MemoryTree();
    for (let start = 0; start < 10; start += 4) {
      for (const leaf of (await log.leaves(start)).leaves) tree.append(leaf);
    }
    expect(tree.root()).toEqual((await log.latestSth()).rootHash);
    await expect(log.leaves(0, 11)).rejects.toBeInstanceOf(KtLogError);
    await expect(log.leaves(7, 6)).rejects.toMatchObject({ code: "SVC_BAD_REQUEST" });
  });

  it("gives concurrent appends distinct sizes, each with its own STH", async () => {
    const log = await openLog();
    const results = (
      await Promise.all(
        Array.from({ length: 40 }, (_, i) => log.append(identityChange(`c${i % 25}`, i))),
      )
    ).map(loggedLeaf);
    expect(results.map((r) => r.leafIndex).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 40 }, (_, i) => i),
    );
    for (const { leafIndex, sth } of results) {
      expect(sth.treeSize).toBe(leafIndex + 1);
      expect(await log.sthAt(sth.treeSize)).toEqual(sth);
    }
    const latest = await log.latestSth();
    for (let i = 0; i < 25; i++) {
      const proof = await log.proofFor(`c${i}`);
      const last = results.filter((_, j) => j % 25 === i).at(-1);
      expect(proof.body).toMatchObject({ type: "inclusion", leafIndex: last?.leafIndex });
      verifyKtProofBody(
        `c${i}`,
        proof,
        live(last?.leafIndex as number),
        vrfPublicKey(vrfSecretKey),
      );
      expect(proof.sth).toEqual(latest);
    }
  });

  it("proves many addresses at once while the log grows, each proof under its own STH", async () => {
    const log = await openLog();
    for (let i = 0; i < 10; i++) await log.append(identityChange(`p${i}`, i));
    await log.append({ kind: "tombstone", address: "p3" });
    const asked = Array.from({ length: 60 }, (_, i) => `p${i % 14}`);
    const [proofs] = await Promise.all([
      Promise.all(asked.map((address) => log.proofFor(address))),
      log.append(identityChange("p12", 12)),
    ]);
    for (const [i, proof] of proofs.entries()) {
      const n = i % 14;
      const size = proof.sth.treeSize;
      expect(await log.sthAt(size)).toMatchObject({ indexRoot: proof.sth.indexRoot });
      const claim: KtClaim =
        n === 3
          ? { type: "tombstone" }
          : n < 10 || (n === 12 && size === 12)
            ? live(n)
            : { type: "absence" };
      expect(verifyKtProofBody(`p${n}`, proof, claim, vrfPublicKey(vrfSecretKey)).type).toBe(
        claim.type,
      );
    }
    // Asked after the append answered, every proof shows it.
    expect((await log.proofFor("p12")).body).toMatchObject({ type: "inclusion", leafIndex: 11 });
  });

  it("proves and updates addresses whose map paths run deeper than the first read", async () => {
    const pair = addressesSharingBits(16);
    const log = await openLog();
    const addresses = [...pair, "x1", "x2", "x3"];
    for (const [i, address] of addresses.entries()) await log.append(identityChange(address, i));
    const proofs = await Promise.all(addresses.map((address) => log.proofFor(address)));
    for (const [i, proof] of proofs.entries()) {
      expect(
        verifyKtProofBody(addresses[i] as string, proof, live(i), vrfPublicKey(vrfSecretKey)).type,
      ).toBe("inclusion");
    }
    expect(proofs[0]?.body.indexProof.depth).toBeGreaterThan(16);
    await log.append({ kind: "tombstone", address: pair[1] });
    const tombstone = await log.proofFor(pair[1]);
    expect(
      verifyKtProofBody(pair[1], tombstone, { type: "tombstone" }, vrfPublicKey(vrfSecretKey)).type,
    ).toBe("tombstone");
    const map = new SparseMerkleMap();
    for (const leaf of (await log.leaves(0)).leaves) {
      map.set(decodeLeafV2(leaf).index, leafHash(leaf));
    }
    expect((await log.latestSth()).indexRoot).toEqual(map.root());
  });

  it("survives a restart and refuses a database signed by another key", async () => {
    const db = await storage();
    const first = await KtLog.open({ vrfSecretKey, storage: db, signer });
    await first.append(identityChange("alice", 1));
    const reopened = await KtLog.open({ vrfSecretKey, storage: db, signer });
    expect((await reopened.latestSth()).treeSize).toBe(1);
    await reopened.append(identityChange("bob", 3));
    // The first instance's cached right edge is stale now; it must notice.
    const { sth } = await first.append(identityChange("carol", 5));
    expect(sth.treeSize).toBe(3);
    const tree = new MemoryTree();
    for (const leaf of (await first.leaves(0)).leaves) tree.append(leaf);
    expect(sth.rootHash).toEqual(tree.root());
    await expect(
      KtLog.open({ vrfSecretKey, storage: db, signer: createSthSigner(key32(43)) }),
    ).rejects.toThrow(/another signing key/);
  });

  it("refuses a log whose index map an earlier build hashed another way", async () => {
    const db = await storage();
    await (await KtLog.open({ vrfSecretKey, storage: db, signer })).append(
      identityChange("alice", 1),
    );
    await db.db.update(ktLog).set({ indexMapFormat: 1 });
    await expect(KtLog.open({ vrfSecretKey, storage: db, signer })).rejects.toThrow(
      /index map in format 1 .* this build writes format 3/,
    );
  });

  it("proves under the latest STH whether or not the proof was made before", async () => {
    let clock = 10_000;
    const log = await openLog({
      now: () => clock,
    });
    await log.append(identityChange("alice", 1));
    const first = await log.proofFor("alice");
    clock += 5_000;
    const refreshed = await log.refresh(1000);
    const again = await log.proofFor("alice");
    expect(again.sth).toEqual(refreshed);
    expect(again.body).toEqual(first.body);
    expect(verifyKtProofBody("alice", again, live(1), vrfPublicKey(vrfSecretKey))).toMatchObject({
      leafIndex: 0,
    });
    await log.append(identityChange("bob", 3));
    const grown = await log.proofFor("alice");
    expect(grown.sth.treeSize).toBe(2);
    expect(verifyKtProofBody("alice", grown, live(1), vrfPublicKey(vrfSecretKey))).toMatchObject({
      leafIndex: 0,
    });
    await log.append({ kind: "tombstone", address: "alice" });
    expect((await log.proofFor("alice")).body.type).toBe("tombstone");
  });

  it("makes an aging kept proof again beside the fetch that found it, once the log grew", async () => {
    const lagMs = 2000;
    const log = await openLog({
      proofLagMs: lagMs,
    });
    const alice = identityChange("alice", 1);
    await log.append(alice);
    const madeAt = performance.now();
    expect((await log.proofShowing("alice", alice))?.sth.treeSize).toBe(1);
    await log.append(identityChange("bob", 3));
    await sleep((lagMs * 3) / 4 + 50);
    // Still within the lag: the kept proof answers, and a new one is made beside it.
    expect((await log.proofShowing("alice", alice))?.sth.treeSize).toBe(1);
    await vi.waitFor(async () => {
      expect((await log.proofShowing("alice", alice))?.sth.treeSize).toBe(2);
    });
    expect(performance.now() - madeAt).toBeLessThan(lagMs);
  });

  it("re-signs an idle latest STH once it is old enough", async () => {
    let clock = 10_000;
    const published: number[] = [];
    const log = await openLog({
      now: () => clock,
      onPublish: (sth) => published.push(sth.timestampMs),
    });
    await log.append(identityChange("alice", 1));
    clock += 500;
    expect(await log.refresh(1000)).toBeUndefined();
    clock += 500;
    const refreshed = await log.refresh(1000);
    expect(refreshed).toMatchObject({ treeSize: 1, timestampMs: 11_000 });
    expect(signedBySigner(refreshed as SignedTreeHead)).toBe(true);
    expect(await log.latestSth()).toEqual(refreshed);
    expect(published).toEqual([10_000, 10_000, 11_000]);
  });

  it("refuses an invalid change alone, without failing the changes batched with it", async () => {
    const log = await openLog();
    const results = await Promise.allSettled([
      log.append(identityChange("alice", 1)),
      log.append({ kind: "tombstone", address: "bad,address" }),
      log.append({ ...identityChange("bob", 3), identityDHKey: new Uint8Array(31) }),
      log.append(identityChange("carol", 5)),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      "fulfilled",
      "rejected",
      "rejected",
      "fulfilled",
    ]);
    expect((await log.latestSth()).treeSize).toBe(2);
  });

  it("fails a batch the database refuses, and recovers", async () => {
    const db = await storage();
    const log = await KtLog.open({ vrfSecretKey, storage: db, signer });
    await log.append(identityChange("alice", 1));
    // Another writer takes the next leaf index behind the log's back: the batch must not commit.
    await db.db
      .insert(ktLeaves)
      .values({ leafIndex: 1, address: "intruder", leaf: new Uint8Array(1) });
    await expect(log.append(identityChange("bob", 3))).rejects.toThrow();
    expect((await log.latestSth()).treeSize).toBe(1);
    await db.db.delete(ktLeaves).where(eq(ktLeaves.address, "intruder"));
    expect((await log.append(identityChange("bob", 3))).leafIndex).toBe(1);
  });

  it("refuses a bad maxBatch or leavesPerRead", async () => {
    const db = await storage();
    await expect(KtLog.open({ vrfSecretKey, storage: db, signer, maxBatch: 0 })).rejects.toThrow(
      RangeError,
    );
    await expect(
      KtLog.open({ vrfSecretKey, storage: db, signer, leavesPerRead: 1.5 }),
    ).rejects.toThrow(RangeError);
  });
});

/** The latest STH's roots are those of every leaf stored, replayed into the reference log and map. */
async function expectRootsOfStoredLeaves(log: KtLog, size: number): Promise<SignedTreeHead> {
  const tree = new MemoryTree();
  const map = new SparseMerkleMap();
  for (const leaf of (await log.leaves(0)).leaves) {
    tree.append(leaf);
    map.set(decodeLeafV2(leaf).index, leafHash(leaf));
  }
  const latest = await log.latestSth();
  expect(latest.treeSize).toBe(size);
  expect(latest.rootHash).toEqual(tree.root());
  expect(latest.indexRoot).toEqual(map.root());
  return latest;
}

describe("KtLog on the embedded database with two instances", () => {
  /** Two logs on one embedded database, appending 60 changes in turn (in batches of three). */
  async function raceAppends(refreshing: (log: KtLog) => Promise<void>) {
    const db = await createTestStorage({ migrations, kind: "pglite" });
    cleanups.push(() => db.close());
    let clock = 50_000;
    // Each call a millisecond later, so that every refresh re-signs with a new timestamp.
    const now = () => clock++;
    const [logA, logB] = await Promise.all([
      KtLog.open({ vrfSecretKey, storage: db, signer, now, maxBatch: 3 }),
      KtLog.open({ vrfSecretKey, storage: db, signer, now, maxBatch: 3 }),
    ]);
    let appending = true;
    const refreshes = (async () => {
      while (appending) await refreshing(logA);
    })();
    const results = (
      await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          (i % 2 === 0 ? logA : logB).append(identityChange(`g${i % 45}`, i)),
        ),
      )
    ).map(loggedLeaf);

    appending = false;
    await refreshes;
    expect(results.map((r) => r.leafIndex).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 60 }, (_, i) => i),
    );
    await expectRootsOfStoredLeaves(logB, 60);
    return { log: logA, results };
  }

  it("keeps one sequence when their guarded appends race", async () => {
    const { log, results } = await raceAppends(() => new Promise((r) => setImmediate(r)));
    for (const { leafIndex, sth } of results) expect(await log.sthAt(leafIndex + 1)).toEqual(sth);
  });

  it("keeps STH timestamps in order when refreshes race the guarded appends", async () => {
    const { log, results } = await raceAppends(async (log) => {
      await log.refresh(0);
    });
    const stamps = await Promise.all(
      Array.from({ length: 61 }, async (_, size) => (await log.sthAt(size)).timestampMs),
    );
    expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
    for (const { leafIndex, sth } of results) {
      // A refresh may have re-signed it since, with a later timestamp, over the same tree.
      const stored = await log.sthAt(leafIndex + 1);
      expect(stored).toMatchObject({ rootHash: sth.rootHash, indexRoot: sth.indexRoot });
      expect(stored.timestampMs).toBeGreaterThanOrEqual(sth.timestampMs);
      expect(signedBySigner(stored)).toBe(true);
    }
  });
});

describe.runIf(hasTestPostgres())("KtLog on PostgreSQL with two instances", () => {
  it("sequences appends from two storages into one log", async () => {
    const database = await createTestDatabase();
    const a = await openStorage({ databaseUrl: database.url, poolSize: 4, migrations });
    const b = await openStorage({ databaseUrl: database.url, poolSize: 4, migrations });
    cleanups.push(async () => {
      await a.close();
      await b.close();
      await database.drop();
    });
    const [logA, logB] = await Promise.all([
      KtLog.open({ vrfSecretKey, storage: a, signer }),
      KtLog.open({ vrfSecretKey, storage: b, signer }),
    ]);
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        (i % 2 === 0 ? logA : logB).append(identityChange(`m${i}`, i)),
      ),
    );
    expect(new Set(results.map((r) => r.leafIndex)).size).toBe(60);
    await expectRootsOfStoredLeaves(logB, 60);
  });
});
