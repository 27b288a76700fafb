import { sha256 } from "@noble/hashes/sha2.js";
import type { Storage } from "@svc/db";
import { createTestStorage, hasTestPostgres } from "@svc/db/testing";
import {
  decodeLeafV2,
  deviceListCommitment,
  ktProofToJson,
  parseKtProof,
  verifyDeviceListBody,
  verifyKtProofBody,
} from "@svc/kt-verify";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { deviceListChange } from "./append-batch.js";
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
/** Stand-ins for the hashes of versions of a device list (the log sees only the hash). */
const listHash = (n: number) => sha256(Uint8Array.of(n));

function refusal(run: () => unknown): string {
  try {
    run();
    return "verified";
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

describe.each(kinds)("KtLog and device lists, on %s", (kind) => {
  async function openLog(): Promise<KtLog> {
    const storage: Storage = await createTestStorage({ migrations, kind });
    cleanups.push(() => storage.close());
    return KtLog.open({ vrfSecretKey, storage, signer });
  }

  it("logs each version as an identity leaf under the list's own index and proves the latest", async () => {
    const log = await openLog();
    await log.append(identityChange("alice:1", 1));
    await log.append(deviceListChange("alice", listHash(1), 1));
    await log.append(deviceListChange("alice", listHash(2), 2));
    const proof = await log.deviceListProof("alice", listHash(2));
    expect(proof?.body).toMatchObject({ type: "inclusion", leafIndex: 2 });
    expect(proof?.body).not.toHaveProperty("kemKeyHash");
    const parsed = parseKtProof(ktProofToJson(proof as NonNullable<typeof proof>));
    expect(verifyDeviceListBody("alice", parsed, listHash(2), log.vrfPublicKey)).toMatchObject({
      type: "inclusion",
      leafIndex: 2,
    });
    const [, first, second] = (await log.leaves(0)).leaves.map((leaf) => decodeLeafV2(leaf));
    expect(first?.kind).toBe("identity");
    expect(second?.index).toEqual(first?.index);
    // The log's name for the list is no address: the account's own device keeps its index.
    const device = await log.proofFor("alice:1");
    expect(device.body).toMatchObject({ type: "inclusion", leafIndex: 0 });
  });

  it("never logs a version behind a later one's leaf: a late append is superseded", async () => {
    const log = await openLog();
    await log.append(deviceListChange("alice", listHash(1), 1));
    const second = await log.append(deviceListChange("alice", listHash(2), 2));
    // A repair that read version 1 before version 2 was written, or version 2's own append twice.
    for (const late of [1, 2]) {
      const answer = await log.append(deviceListChange("alice", listHash(late), late));
      expect(answer).toEqual({ leafIndex: second.leafIndex, sth: second.sth, superseded: true });
    }
    expect((await log.latestSth()).treeSize).toBe(2);
    expect(await log.deviceListProof("alice", listHash(2))).toBeDefined();
    // In one batch: the later version first, the earlier one after it appends nothing.
    const batch = await Promise.all([
      log.append(deviceListChange("alice", listHash(4), 4)),
      log.append(deviceListChange("alice", listHash(3), 3)),
      log.append(identityChange("bob", 1)),
    ]);
    expect(batch.map((answer) => answer.superseded ?? false)).toEqual([false, true, false]);
    expect((await log.latestSth()).treeSize).toBe(4);
    expect(await log.deviceListProof("alice", listHash(4))).toBeDefined();
    expect(await log.deviceListProof("alice", listHash(3))).toBeUndefined();
    await log.append(deviceListChange("alice", listHash(5), 5));
    expect(await log.deviceListProof("alice", listHash(5))).toBeDefined();
    expect(() => deviceListChange("alice", listHash(1), 0)).toThrow(RangeError);
  });

  it("proves no version but the latest, and the absence of a list never written", async () => {
    const log = await openLog();
    await log.append(deviceListChange("alice", listHash(1), 1));
    await log.append(deviceListChange("alice", listHash(2), 2));
    expect(await log.deviceListProof("alice", listHash(1))).toBeUndefined();
    expect(await log.deviceListProof("alice", undefined)).toBeUndefined();
    const absent = await log.deviceListProof("bob", undefined);
    expect(absent?.body.type).toBe("absence");
    expect(
      verifyDeviceListBody("bob", absent as NonNullable<typeof absent>, undefined, log.vrfPublicKey)
        .type,
    ).toBe("absence");
    expect(await log.deviceListProof("bob", listHash(1))).toBeUndefined();
  });

  it("gives proofs a verifier refuses for another version, another account or an address", async () => {
    const log = await openLog();
    await log.append(identityChange("alice", 1));
    await log.append(deviceListChange("alice", listHash(1), 1));
    const proof = (await log.deviceListProof("alice", listHash(1))) as NonNullable<
      Awaited<ReturnType<KtLog["deviceListProof"]>>
    >;
    const vrf = log.vrfPublicKey;
    expect(refusal(() => verifyDeviceListBody("alice", proof, listHash(2), vrf))).toBe(
      "KT_KEY_MISMATCH",
    );
    expect(refusal(() => verifyDeviceListBody("carol", proof, listHash(1), vrf))).toBe(
      "KT_BAD_PROOF",
    );
    expect(refusal(() => verifyDeviceListBody("alice", proof, undefined, vrf))).toBe(
      "KT_KEY_MISMATCH",
    );
    // The address `alice`'s identity proof is not a proof of the list, nor the other way round.
    const identity = await log.proofFor("alice");
    expect(refusal(() => verifyDeviceListBody("alice", identity, listHash(1), vrf))).toBe(
      "KT_BAD_PROOF",
    );
    const claim = { type: "inclusion", ...identityChange("alice", 1) } as const;
    expect(refusal(() => verifyKtProofBody("alice", proof, claim, vrf))).toBe("KT_BAD_PROOF");
  });

  it("commits SHA-256 of the domain, opening, the list's name and the list hash", async () => {
    const log = await openLog();
    await log.append(deviceListChange("alice", listHash(1), 1));
    const proof = await log.deviceListProof("alice", listHash(1));
    if (proof?.body.type !== "inclusion" || proof.body.opening === undefined) throw new Error();
    const name = new TextEncoder().encode("devices/alice");
    const expected = sha256(
      Uint8Array.from([
        ...new TextEncoder().encode("svc-kt-commit-v1\0"),
        ...proof.body.opening,
        0,
        name.length,
        ...name,
        ...listHash(1),
      ]),
    );
    expect(deviceListCommitment(proof.body.opening, "alice", listHash(1))).toEqual(expected);
    expect(decodeLeafV2(proof.body.leaf).commitment).toEqual(expected);
    await expect(log.append(deviceListChange("alice", new Uint8Array(31), 1))).rejects.toThrow(
      RangeError,
    );
    expect(() => deviceListChange("Alice\u0301", listHash(1), 1)).toThrow(RangeError);
  });
});
