import type { Storage } from "@svc/db";
import { createTestStorage } from "@svc/db/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPrekeyDirectory, type PrekeyDirectory } from "./directory.js";
import { PrekeyError } from "./errors.js";
import { prekeysMigrations } from "./schema.js";
import { oneTimePreKeys, registration, seed } from "./test-support/identities.js";
import type { OneTimePreKey } from "./types.js";

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

/** Appends one-time prekeys only, as a classic replenish does; the queue length afterwards. */
async function append(address: string, key: Uint8Array, entries: OneTimePreKey[]) {
  return (await directory.replenish(address, key, { oneTimePreKeys: entries }, 2000)).remaining;
}

async function count(of: PrekeyDirectory, address: string): Promise<number> {
  return (await of.countPrekeys(address)).count;
}

describe("prekey directory", () => {
  it("creates an identity once, then updates it", async () => {
    const first = await directory.registerIdentity(registration("alice", "a", [1, 2]), 1000);
    expect(first).toEqual({ created: true, remaining: 2, kemRemaining: 0, kemKeyChanged: false });
    const again = registration("alice", "a", [3]);
    again.signedPreKey = { ...again.signedPreKey, keyId: 9 };
    expect(await directory.registerIdentity(again, 2000)).toEqual({
      created: false,
      remaining: 3,
      kemRemaining: 0,
      kemKeyChanged: false,
    });
    const stored = await directory.findIdentity("alice");
    expect(stored?.signedPreKey.keyId).toBe(9);
    expect(stored?.identitySigningKey).toEqual(again.identitySigningKey);
  });

  it("refuses a register naming other identity keys", async () => {
    await directory.registerIdentity(registration("alice", "a"), 1000);
    const other = {
      ...registration("alice", "b"),
      identityDHKey: registration("x", "a").identityDHKey,
    };
    await expect(directory.registerIdentity(other, 1000)).rejects.toMatchObject({
      code: "SVC_IDENTITY_MISMATCH",
    });
    const otherDh = {
      ...registration("alice", "a"),
      identityDHKey: registration("x", "b").identityDHKey,
    };
    await expect(directory.registerIdentity(otherDh, 1000)).rejects.toBeInstanceOf(PrekeyError);
  });

  it("hands out one-time prekeys by arrival, not keyId, then none", async () => {
    await directory.registerIdentity(registration("alice", "a", [7, 3]), 1000);
    await append("alice", registration("alice", "a").identitySigningKey, oneTimePreKeys("a", [1]));
    const ids = [];
    for (let i = 0; i < 4; i++)
      ids.push((await directory.fetchBundle("alice"))?.oneTimePreKey?.keyId);
    expect(ids).toEqual([7, 3, 1, undefined]);
    const bundle = await directory.fetchBundle("alice");
    expect(bundle?.signedPreKey.keyId).toBe(1);
    expect(bundle && "oneTimePreKey" in bundle).toBe(false);
    expect(await count(directory, "alice")).toBe(0);
  });

  it("returns the public keys as stored", async () => {
    const reg = registration("alice", "a", [5]);
    await directory.registerIdentity(reg, 1000);
    const bundle = await directory.fetchBundle("alice");
    expect(bundle).toEqual({
      address: "alice",
      identitySigningKey: reg.identitySigningKey,
      identityDHKey: reg.identityDHKey,
      signedPreKey: reg.signedPreKey,
      oneTimePreKey: reg.oneTimePreKeys[0],
    });
    expect(bundle?.identitySigningKey.constructor).toBe(Uint8Array);
  });

  it("answers nothing for an unregistered address", async () => {
    expect(await directory.fetchBundle("nobody")).toBeUndefined();
    expect(await directory.findIdentity("nobody")).toBeUndefined();
    expect(await count(directory, "nobody")).toBe(0);
    const key = registration("nobody", "n").identitySigningKey;
    await expect(append("nobody", key, [])).rejects.toMatchObject({
      code: "SVC_NOT_REGISTERED",
    });
    await expect(directory.deleteIdentity("nobody", key)).rejects.toMatchObject({
      code: "SVC_NOT_REGISTERED",
    });
  });

  it("skips re-uploads, rejects conflicts and caps the queue at 1000", async () => {
    const key = registration("alice", "a").identitySigningKey;
    await directory.registerIdentity(registration("alice", "a", range(0, 100)), 1000);
    expect(await append("alice", key, oneTimePreKeys("a", range(50, 150)))).toBe(150);
    await expect(append("alice", key, oneTimePreKeys("other", [3]))).rejects.toMatchObject({
      code: "SVC_BAD_REQUEST",
    });
    for (let from = 150; from < 1000; from += 100) {
      await append("alice", key, oneTimePreKeys("a", range(from, Math.min(from + 100, 1000))));
    }
    expect(await count(directory, "alice")).toBe(1000);
    await expect(append("alice", key, oneTimePreKeys("a", [1000]))).rejects.toMatchObject({
      code: "SVC_BAD_REQUEST",
    });
    // A re-upload of queued keys adds nothing, so it passes even with a full queue.
    expect(await append("alice", key, oneTimePreKeys("a", [0, 1]))).toBe(1000);
    expect(await count(directory, "alice")).toBe(1000);
  });

  it("lets a consumed keyId be uploaded again", async () => {
    const key = registration("alice", "a").identitySigningKey;
    await directory.registerIdentity(registration("alice", "a", [1]), 1000);
    await directory.fetchBundle("alice");
    expect(await append("alice", key, oneTimePreKeys("other", [1]))).toBe(1);
  });

  it("rejects a whole request when one entry breaks a rule", async () => {
    await directory.registerIdentity(registration("alice", "a", [1]), 1000);
    const bad = registration("alice", "a", [2, 3]);
    bad.oneTimePreKeys.push(...oneTimePreKeys("other", [1]));
    await expect(directory.registerIdentity(bad, 2000)).rejects.toMatchObject({
      code: "SVC_BAD_REQUEST",
    });
    expect(await count(directory, "alice")).toBe(1);
  });

  it("serializes concurrent appends so the cap holds", async () => {
    const key = registration("alice", "a").identitySigningKey;
    await directory.registerIdentity(registration("alice", "a"), 1000);
    const results = await Promise.allSettled(
      range(0, 12).map((n) =>
        append("alice", key, oneTimePreKeys("a", range(n * 100, n * 100 + 100))),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(10);
    expect(await count(directory, "alice")).toBe(1000);
  });

  it("registers and fills many queues at once", async () => {
    // Every write is a transaction; 100 at once outnumber the pool's connections many times.
    const addresses = range(0, 100).map((n) => `user-${n}`);
    const reg = registration("anyone", "a");
    const prekeys = (address: string, from: number) =>
      range(from, from + 100).map((keyId) => ({ keyId, publicKey: seed(address, keyId) }));
    await Promise.all(
      addresses.map(async (address) => {
        await directory.registerIdentity(
          { ...reg, address, oneTimePreKeys: prekeys(address, 0) },
          1000,
        );
        for (let from = 100; from < 500; from += 100) {
          // As the routes do: a lookup outside a transaction, then the write.
          await directory.findIdentity(address);
          await append(address, reg.identitySigningKey, prekeys(address, from));
        }
      }),
    );
    const counts = await Promise.all(addresses.map((a) => count(directory, a)));
    expect(counts).toEqual(addresses.map(() => 500));
  });

  it("deletes identity and queue only for the current signing key", async () => {
    const reg = registration("alice", "a", [1, 2]);
    await directory.registerIdentity(reg, 1000);
    await expect(
      directory.deleteIdentity("alice", registration("alice", "b").identitySigningKey),
    ).rejects.toMatchObject({ code: "SVC_IDENTITY_MISMATCH" });
    expect((await directory.deleteIdentity("alice", reg.identitySigningKey)).identityDHKey).toEqual(
      reg.identityDHKey,
    );
    expect(await count(directory, "alice")).toBe(0);
    expect(await directory.fetchBundle("alice")).toBeUndefined();
    expect((await directory.registerIdentity(registration("alice", "b"), 3000)).created).toBe(true);
  });

  it("creates an identity once under concurrent first registers", async () => {
    const results = await Promise.all(
      range(0, 8).map(() => directory.registerIdentity(registration("alice", "a"), 1000)),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
  });

  it("never hands out a one-time prekey twice under concurrent fetches", async () => {
    await directory.registerIdentity(registration("alice", "a", range(0, 100)), 1000);
    const bundles = await Promise.all(range(0, 150).map(() => directory.fetchBundle("alice")));
    const handed = bundles.flatMap((b) => (b?.oneTimePreKey ? [b.oneTimePreKey.keyId] : []));
    expect(new Set(handed).size).toBe(handed.length);
    expect(handed.length + (await count(directory, "alice"))).toBe(100);
    expect(handed).toHaveLength(100);
  });

  it("serves fetches batched together in arrival order, per address", async () => {
    const batched = createPrekeyDirectory(storage.db, { fetchConcurrency: 1 });
    await batched.registerIdentity(registration("alice", "a", [7, 3, 5]), 1000);
    await batched.registerIdentity(registration("bob", "b", [1]), 1000);
    // The seven fetches arrive in one turn of the event loop and go as one statement.
    const order = ["alice", "bob", "alice", "nobody", "bob", "alice", "alice"];
    const bundles = await Promise.all(order.map((address) => batched.fetchBundle(address)));
    expect(bundles.map((b) => b?.oneTimePreKey?.keyId ?? (b ? "none" : "unregistered"))).toEqual([
      7,
      1,
      3,
      "unregistered",
      "none",
      5,
      "none",
    ]);
    expect(bundles[6]?.identitySigningKey).toEqual(bundles[0]?.identitySigningKey);
    expect(bundles[4]?.signedPreKey).toEqual(bundles[1]?.signedPreKey);
    expect(await count(batched, "alice")).toBe(0);
  });
});
