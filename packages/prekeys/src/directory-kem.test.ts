import { createHash } from "node:crypto";
import type { Storage } from "@svc/db";
import { createTestStorage } from "@svc/db/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPrekeyDirectory, type PrekeyDirectory } from "./directory.js";
import { prekeysMigrations } from "./schema.js";
import { kemPreKey, kemPreKeys, registration } from "./test-support/identities.js";
import type { Registration } from "./types.js";

let storage: Storage;
let directory: PrekeyDirectory;
beforeEach(async () => {
  storage = await createTestStorage({ migrations: [prekeysMigrations] });
  directory = createPrekeyDirectory(storage.db);
});
afterEach(async () => {
  await storage.close();
});

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash("sha256").update(bytes).digest());
const signingKey = registration("alice", "a").identitySigningKey;

/** alice with EC one-time prekeys `ecIds`, a last-resort KEM key 1000 and KEM keys `kemIds`. */
function pqRegistration(ecIds: number[], kemIds: number[]): Registration {
  return {
    ...registration("alice", "a", ecIds),
    kemLastResortPreKey: kemPreKey("a", 1000),
    kemPreKeys: kemPreKeys("a", kemIds),
  };
}

describe("prekey directory, KEM prekeys", () => {
  it("serves one-time KEM prekeys FIFO beside the EC ones, then the last-resort key", async () => {
    const result = await directory.registerIdentity(pqRegistration([1], [7, 3]), 1000);
    expect(result).toEqual({ created: true, remaining: 1, kemRemaining: 2, kemKeyChanged: false });
    await directory.replenish(
      "alice",
      signingKey,
      { oneTimePreKeys: [], kemPreKeys: kemPreKeys("a", [5]) },
      2000,
    );
    expect(await directory.countPrekeys("alice")).toEqual({ count: 1, kemCount: 3 });

    const bundles = [];
    for (let i = 0; i < 5; i++) bundles.push(await directory.fetchBundle("alice"));
    expect(bundles.map((b) => b?.oneTimePreKey?.keyId)).toEqual([
      1,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(bundles.map((b) => [b?.kemPreKey?.keyId, b?.kemPreKey?.lastResort])).toEqual([
      [7, false],
      [3, false],
      [5, false],
      [1000, true],
      [1000, true],
    ]);
    expect(bundles[0]?.kemPreKey).toEqual({ ...kemPreKey("a", 7), lastResort: false });
    expect(bundles[4]?.kemPreKey).toEqual({ ...kemPreKey("a", 1000), lastResort: true });
    const hash = sha256(kemPreKey("a", 1000).publicKey);
    for (const bundle of bundles) expect(bundle?.kemKeyHash).toEqual(hash);
    expect(await directory.countPrekeys("alice")).toEqual({ count: 0, kemCount: 0 });
  });

  it("gives a classic identity no KEM member and leaves its bundle as it was", async () => {
    const reg = registration("alice", "a", [5]);
    await directory.registerIdentity(reg, 1000);
    const bundle = await directory.fetchBundle("alice");
    expect(bundle).toStrictEqual({
      address: "alice",
      identitySigningKey: reg.identitySigningKey,
      identityDHKey: reg.identityDHKey,
      signedPreKey: reg.signedPreKey,
      oneTimePreKey: reg.oneTimePreKeys[0],
    });
    expect(await directory.findIdentity("alice")).not.toHaveProperty("kemLastResortPreKey");
  });

  it("keeps the stored last-resort key when a register omits it, and reports a replacement", async () => {
    await directory.registerIdentity(pqRegistration([], []), 1000);
    const classic = await directory.registerIdentity(registration("alice", "a"), 2000);
    expect(classic.kemKeyChanged).toBe(false);
    expect((await directory.findIdentity("alice"))?.kemLastResortPreKey).toEqual(
      kemPreKey("a", 1000),
    );
    const same = await directory.registerIdentity(pqRegistration([], []), 3000);
    expect(same.kemKeyChanged).toBe(false);

    const rotated = await directory.replenish(
      "alice",
      signingKey,
      { oneTimePreKeys: [], kemLastResortPreKey: kemPreKey("a", 2000) },
      4000,
    );
    expect(rotated).toEqual({ remaining: 0, kemRemaining: 0, kemKeyChanged: true });
    expect((await directory.fetchBundle("alice"))?.kemPreKey).toEqual({
      ...kemPreKey("a", 2000),
      lastResort: true,
    });
    expect((await directory.fetchBundle("alice"))?.kemKeyHash).toEqual(
      sha256(kemPreKey("a", 2000).publicKey),
    );
  });

  it("reports a last-resort key set on a classic identity as a change", async () => {
    await directory.registerIdentity(registration("alice", "a"), 1000);
    const upgraded = await directory.registerIdentity(pqRegistration([], [1]), 2000);
    expect(upgraded).toEqual({
      created: false,
      remaining: 0,
      kemRemaining: 1,
      kemKeyChanged: true,
    });
  });

  it("refuses one-time KEM prekeys without a last-resort key, changing nothing", async () => {
    const reg = { ...registration("alice", "a", [1]), kemPreKeys: kemPreKeys("a", [1]) };
    await expect(directory.registerIdentity(reg, 1000)).rejects.toMatchObject({
      code: "SVC_BAD_REQUEST",
    });
    expect(await directory.findIdentity("alice")).toBeUndefined();
    await directory.registerIdentity(registration("alice", "a"), 1000);
    await expect(
      directory.replenish(
        "alice",
        signingKey,
        { oneTimePreKeys: [], kemPreKeys: kemPreKeys("a", [1]) },
        2000,
      ),
    ).rejects.toMatchObject({ code: "SVC_BAD_REQUEST" });
    expect(await directory.countPrekeys("alice")).toEqual({ count: 0, kemCount: 0 });
  });

  it("applies the EC queue's rules to the KEM queue: skips, conflicts, 100 per request, 1000 queued", async () => {
    await directory.registerIdentity(pqRegistration([], range(0, 100)), 1000);
    const upload = (kemIds: number[], keyLabel = "a") =>
      directory.replenish(
        "alice",
        signingKey,
        { oneTimePreKeys: [], kemPreKeys: kemPreKeys("a", kemIds, keyLabel) },
        2000,
      );
    expect((await upload(range(50, 150))).kemRemaining).toBe(150);
    await expect(upload([3], "other")).rejects.toMatchObject({
      code: "SVC_BAD_REQUEST",
      message: expect.stringMatching(/KEM prekey 3 is already queued/),
    });
    await expect(upload(range(200, 301))).rejects.toMatchObject({
      message: expect.stringMatching(/at most 100 one-time KEM prekeys per request/),
    });
    for (let from = 150; from < 1000; from += 100)
      await upload(range(from, Math.min(from + 100, 1000)));
    expect(await directory.countPrekeys("alice")).toEqual({ count: 0, kemCount: 1000 });
    await expect(upload([1000])).rejects.toMatchObject({
      message: expect.stringMatching(/at most 1000 one-time KEM prekeys may be queued/),
    });
    expect((await upload([0, 1])).kemRemaining).toBe(1000);
  });

  it("deletes the KEM queue with the identity", async () => {
    await directory.registerIdentity(pqRegistration([], [1, 2]), 1000);
    await directory.deleteIdentity("alice", signingKey);
    expect(await directory.countPrekeys("alice")).toEqual({ count: 0, kemCount: 0 });
    await directory.registerIdentity(registration("alice", "a"), 2000);
    expect((await directory.fetchBundle("alice"))?.kemPreKey).toBeUndefined();
  });

  it("never hands out a one-time KEM prekey twice under concurrent fetches", async () => {
    await directory.registerIdentity(pqRegistration(range(0, 60), range(0, 100)), 1000);
    const bundles = await Promise.all(range(0, 150).map(() => directory.fetchBundle("alice")));
    const kem = bundles.flatMap((b) =>
      b?.kemPreKey && !b.kemPreKey.lastResort ? [b.kemPreKey.keyId] : [],
    );
    const ec = bundles.flatMap((b) => (b?.oneTimePreKey ? [b.oneTimePreKey.keyId] : []));
    expect(new Set(kem).size).toBe(100);
    expect(kem).toHaveLength(100);
    expect(new Set(ec).size).toBe(60);
    expect(ec).toHaveLength(60);
    expect(bundles.filter((b) => b?.kemPreKey?.lastResort)).toHaveLength(50);
  });

  it("serves batched fetches both queues in arrival order, the last-resort key beyond", async () => {
    const batched = createPrekeyDirectory(storage.db, { fetchConcurrency: 1 });
    await batched.registerIdentity(pqRegistration([7], [4, 2, 9]), 1000);
    await batched.registerIdentity(registration("bob", "b", [1]), 1000);
    const order = ["alice", "bob", "alice", "nobody", "bob", "alice", "alice", "alice"];
    const bundles = await Promise.all(order.map((address) => batched.fetchBundle(address)));
    const served = (b: (typeof bundles)[number]) =>
      b
        ? [
            b.oneTimePreKey?.keyId ?? "-",
            b.kemPreKey ? `${b.kemPreKey.keyId}${b.kemPreKey.lastResort ? "!" : ""}` : "-",
          ]
        : "unregistered";
    expect(bundles.map(served)).toEqual([
      [7, "4"],
      [1, "-"],
      ["-", "2"],
      "unregistered",
      ["-", "-"],
      ["-", "9"],
      ["-", "1000!"],
      ["-", "1000!"],
    ]);
    expect(bundles[1]).not.toHaveProperty("kemKeyHash");
    expect(bundles[7]?.kemPreKey?.publicKey).toEqual(kemPreKey("a", 1000).publicKey);
  });
});
