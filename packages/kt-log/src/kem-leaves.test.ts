import { sha256 } from "@noble/hashes/sha2.js";
import type { Storage } from "@svc/db";
import { createTestStorage, hasTestPostgres } from "@svc/db/testing";
import {
  decodeLeafV2,
  KtVerifyError,
  ktProofToJson,
  leafCommitment,
  parseKtProof,
  verifyKtProofBody,
} from "@svc/kt-verify";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { KtLog } from "./kt-log.js";
import { ktLogMigrations } from "./schema.js";
import { createSthSigner } from "./signer.js";
import { identityChange, key32, vrfSecretKey } from "./test-support/keys.js";

const migrations = [ktLogMigrations];

// Migrating the first test database of a file is slow: pay it outside the tests' time limit.
beforeAll(async () => (await createTestStorage({ migrations })).close());

const signer = createSthSigner(key32(42));
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const kinds = hasTestPostgres() ? (["pglite", "postgres"] as const) : (["pglite"] as const);

/** The SHA-256 of a stand-in last-resort KEM public key (the log sees only the hash). */
const kemKeyHash = (n: number) => sha256(new Uint8Array(1568).fill(n));

describe.each(kinds)("KtLog and last-resort KEM keys, on %s", (kind) => {
  async function openLog(): Promise<{ log: KtLog; storage: Storage }> {
    const storage = await createTestStorage({ migrations, kind });
    cleanups.push(() => storage.close());
    return { log: await KtLog.open({ vrfSecretKey, storage, signer }), storage };
  }

  it("commits an identity's KEM key hash and shows it in the proof, which verifies", async () => {
    const { log } = await openLog();
    const dave = { ...identityChange("dave", 1), kemKeyHash: kemKeyHash(1) };
    await log.append(dave);
    await log.append(identityChange("erin", 3));
    const proof = await log.proofFor("dave");
    expect(proof.body).toMatchObject({ type: "inclusion", kemKeyHash: kemKeyHash(1) });
    const parsed = parseKtProof(ktProofToJson(proof));
    const claim = {
      type: "inclusion",
      ...identityChange("dave", 1),
      kemPreKey: { lastResort: true, keyHash: kemKeyHash(1) },
    } as const;
    expect(verifyKtProofBody("dave", parsed, claim, log.vrfPublicKey)).toMatchObject({
      kemCommitted: true,
      leafIndex: 0,
    });
    const erin = await log.proofFor("erin");
    expect(erin.body).not.toHaveProperty("kemKeyHash");
    // An identity without a KEM key commits exactly as before KEM keys.
    if (erin.body.type !== "inclusion" || erin.body.opening === undefined) throw new Error();
    expect(decodeLeafV2(erin.body.leaf).commitment).toEqual(
      leafCommitment(erin.body.opening, "erin", identityChange("erin", 3)),
    );
  });

  it("logs a replaced KEM key as a new identity leaf and proves only the new one", async () => {
    const { log } = await openLog();
    const keys = identityChange("dave", 1);
    const before = { ...keys, kemKeyHash: kemKeyHash(1) };
    const after = { ...keys, kemKeyHash: kemKeyHash(2) };
    await log.append(before);
    expect((await log.proofShowing("dave", before))?.sth.treeSize).toBe(1);
    const { leafIndex } = await log.append(after);
    expect(leafIndex).toBe(1);
    const [first, second] = (await log.leaves(0)).leaves.map((leaf) => decodeLeafV2(leaf));
    expect(second?.kind).toBe("identity");
    expect(second?.index).toEqual(first?.index);
    expect(second?.commitment).not.toEqual(first?.commitment);
    // The kept proof of the old key no longer shows what a bundle read after the change says.
    const shown = await log.proofShowing("dave", after);
    expect(shown?.sth.treeSize).toBe(2);
    expect(shown?.body).toMatchObject({ leafIndex: 1, kemKeyHash: kemKeyHash(2) });
    expect(await log.proofShowing("dave", before)).toBeUndefined();
    expect(await log.proofShowing("dave", keys)).toBeUndefined();
    // And the other way: a proof of a leaf without a KEM key does not show an answer with one.
    await log.append(keys);
    const classic = await log.proofShowing("dave", keys);
    expect(classic?.body).toMatchObject({ leafIndex: 2 });
    expect(classic?.body).not.toHaveProperty("kemKeyHash");
    expect(await log.proofShowing("dave", after)).toBeUndefined();
  });

  it("gives a tombstone no kemKeyHash, and refuses a hash that is not 32 bytes", async () => {
    const { log } = await openLog();
    await log.append({ ...identityChange("dave", 1), kemKeyHash: kemKeyHash(1) });
    await log.append({ kind: "tombstone", address: "dave" });
    const tombstone = await log.proofFor("dave");
    expect(tombstone.body.type).toBe("tombstone");
    expect(tombstone.body).not.toHaveProperty("kemKeyHash");
    expect(verifyKtProofBody("dave", tombstone, { type: "tombstone" }, log.vrfPublicKey).type).toBe(
      "tombstone",
    );
    await expect(
      log.append({ ...identityChange("erin", 3), kemKeyHash: new Uint8Array(31) }),
    ).rejects.toThrow(RangeError);
    expect((await log.latestSth()).treeSize).toBe(2);
  });

  it("serves proofs that make a bundle stripped of its KEM prekey refusable", async () => {
    const { log } = await openLog();
    await log.append({ ...identityChange("dave", 1), kemKeyHash: kemKeyHash(1) });
    const proof = await log.proofFor("dave");
    const claim = { type: "inclusion", ...identityChange("dave", 1) } as const;
    let refused: unknown;
    try {
      verifyKtProofBody("dave", proof, claim, log.vrfPublicKey);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(KtVerifyError);
    expect((refused as KtVerifyError).code).toBe("KT_KEM_MISSING");
  });
});
