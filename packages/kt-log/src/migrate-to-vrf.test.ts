import { readFileSync } from "node:fs";
import { executeRows, type Storage } from "@svc/db";
import { createTestStorage } from "@svc/db/testing";
import { decodeLeaf, decodeLeafV2, leafCommitment } from "@svc/kt-verify";
import { leafHash, SparseMerkleMap, verifyConsistency } from "@svc/merkle";
import { sql } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { KtLog } from "./kt-log.js";
import { ktLogMigrations } from "./schema.js";
import { createSthSigner } from "./signer.js";
import { indexFor, key32, loggedLeaf, vrfSecretKey } from "./test-support/keys.js";

const migrations = [ktLogMigrations];
beforeAll(async () => (await createTestStorage({ migrations })).close());

const FIXTURE = readFileSync(new URL("./fixtures/format2-log.sql", import.meta.url), "utf8");
const signer = createSthSigner(key32(42));
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A database holding the log an earlier build (map format 2) made: seven changes, eight STHs. */
async function format2Database(): Promise<Storage> {
  const storage = await createTestStorage({ migrations });
  cleanups.push(() => storage.close());
  for (const statement of FIXTURE.split("\n").filter((line) => line.startsWith("insert"))) {
    await storage.db.execute(sql.raw(statement));
  }
  return storage;
}

describe("migration of a map-format-2 log", () => {
  it("keeps every leaf and STH, restates each address as a v2 leaf, and re-keys the map by VRF", async () => {
    const db = await format2Database();
    const published: number[] = [];
    const log = await KtLog.open({
      storage: db,
      signer,
      vrfSecretKey,
      onPublish: (sth) => published.push(sth.treeSize),
    });
    const leaves = (await log.leaves(0)).leaves;
    expect(leaves.length).toBe(11);
    const old = leaves.slice(0, 7).map(decodeLeaf);
    expect(old.map((l) => `${l.kind} ${l.address}`)).toEqual([
      "identity alice",
      "identity bob",
      "tombstone alice",
      "identity carol",
      "identity dave",
      "tombstone dave",
      "identity alice",
    ]);
    // One restatement per address, in the order of its latest leaf: bob, carol, dave, alice.
    const restated = leaves.slice(7).map(decodeLeafV2);
    const expected = [
      { address: "bob", from: old[1] },
      { address: "carol", from: old[3] },
      { address: "dave", from: old[5] },
      { address: "alice", from: old[6] },
    ];
    for (const [i, { address, from }] of expected.entries()) {
      const leaf = restated[i];
      expect(leaf?.kind).toBe(from?.kind);
      expect(leaf?.index).toEqual(indexFor(address));
      const proof = await log.proofFor(address);
      const body = proof.body as { leafIndex: number; opening: Uint8Array };
      expect(body.leafIndex).toBe(7 + i);
      const keys = from?.kind === "identity" ? from : undefined;
      expect(leaf?.commitment).toEqual(leafCommitment(body.opening, address, keys));
    }
    expect(published).toEqual([8, 9, 10, 11]);

    const latest = await log.latestSth();
    expect(latest.treeSize).toBe(11);
    const map = new SparseMerkleMap();
    for (const leaf of leaves.slice(7)) map.set(decodeLeafV2(leaf).index, leafHash(leaf));
    expect(latest.indexRoot).toEqual(map.root());
    const before = await log.sthAt(7);
    const { proof } = await log.consistencyProof(7, 11);
    expect(verifyConsistency(7, 11, before.rootHash, latest.rootHash, proof)).toBe(true);
    expect((await log.proofFor("erin")).body.type).toBe("absence");

    // Reopened: nothing more to migrate; the next change is a v2 leaf too.
    const reopened = await KtLog.open({ storage: db, signer, vrfSecretKey });
    expect((await reopened.latestSth()).treeSize).toBe(11);
    const { leafIndex } = loggedLeaf(await reopened.append({ kind: "tombstone", address: "bob" }));
    expect(decodeLeafV2((await reopened.leaves(leafIndex)).leaves[0] as Uint8Array).kind).toBe(
      "tombstone",
    );
  }, 60_000);

  it("keeps the STHs of the earlier sizes byte for byte", async () => {
    const db = await format2Database();
    const read = (where: string) =>
      executeRows<{ t: string }>(
        db.db,
        sql.raw(`select t::text from kt_sths t ${where} order by tree_size`),
      );
    const before = await read("");
    await KtLog.open({ storage: db, signer, vrfSecretKey });
    expect(before.length).toBe(8);
    expect(await read("where tree_size < 8")).toEqual(before);
  });

  it("refuses to open a migrated log with another VRF key", async () => {
    const db = await format2Database();
    await KtLog.open({ storage: db, signer, vrfSecretKey });
    await expect(KtLog.open({ storage: db, signer, vrfSecretKey: key32(78) })).rejects.toThrow(
      /another VRF key/,
    );
  });
});
