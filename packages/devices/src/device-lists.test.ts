import { ed25519KeyPairFromSeed, portableEd25519 } from "@svc/canonical";
import type { Storage } from "@svc/db";
import { openStorage } from "@svc/db";
import { createTestDatabase, createTestStorage, hasTestPostgres } from "@svc/db/testing";
import {
  type DeviceEntry,
  type DeviceList,
  deviceListHash,
  firstDeviceList,
  signDeviceList,
} from "@svc/protocol";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDeviceLists } from "./device-lists.js";
import { DevicesError } from "./errors.js";
import { devicesMigrations } from "./schema.js";

const seed = (n: number) => new Uint8Array(32).fill(n);
const device = (n: number): DeviceEntry => ({
  address: `alice@example.org:${n}`,
  identitySigningKey: ed25519KeyPairFromSeed(seed(n)).publicKey,
});
const registered = new Map([1, 2, 3].map((n) => [device(n).address, device(n).identitySigningKey]));
const options = {
  verifier: portableEd25519,
  identityOf: async (address: string) => registered.get(address),
};

function next(previous: DeviceList, devices: DeviceEntry[], signer = 1): DeviceList {
  return signDeviceList(
    {
      account: previous.account,
      version: previous.version + 1,
      previousHash: deviceListHash(previous),
      devices,
      signer: device(signer).address,
    },
    seed(signer),
  );
}

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DevicesError);
  const e = error as DevicesError;
  return { code: e.code, ...e.extra };
}

const opened: Storage[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

// Migrating the first test database of a file is slow: pay it outside the tests' time limit.
beforeAll(async () =>
  (await createTestStorage({ kind: "pglite", migrations: [devicesMigrations] })).close(),
);

const kinds = hasTestPostgres() ? (["pglite", "postgres"] as const) : (["pglite"] as const);

describe.each(kinds)("device lists on %s", (kind) => {
  async function lists() {
    const storage = await createTestStorage({ kind, migrations: [devicesMigrations] });
    opened.push(storage);
    return createDeviceLists(storage.db);
  }

  it("stores a chain of versions and serves each", async () => {
    const store = await lists();
    const v1 = firstDeviceList(device(1), seed(1));
    expect((await store.write(v1, options)).version).toBe(1);
    const v2 = next(v1, [device(1), device(2)]);
    const written = await store.write(v2, options);
    expect(written).toEqual({ version: 2, listHash: deviceListHash(v2) });
    const v3 = next(v2, [device(2)], 2);
    await store.write(v3, options);
    expect((await store.latest("alice@example.org"))?.list).toEqual(v3);
    expect((await store.version("alice@example.org", 2))?.list).toEqual(v2);
    expect((await store.version("alice@example.org", 2))?.listHash).toEqual(deviceListHash(v2));
    expect(await store.version("alice@example.org", 4)).toBeUndefined();
    expect(await store.latest("bob@example.org")).toBeUndefined();
  });

  it("reads the latest version of several accounts at once, none for one without a list", async () => {
    const store = await lists();
    const v1 = firstDeviceList(device(1), seed(1));
    await store.write(v1, options);
    const v2 = next(v1, [device(1), device(2)]);
    await store.write(v2, options);
    const latest = await store.latestOf(["alice@example.org", "bob@example.org"]);
    expect([...latest.keys()]).toEqual(["alice@example.org"]);
    expect(latest.get("alice@example.org")?.list).toEqual(v2);
    expect(await store.latestOf([])).toEqual(new Map());
  });

  it("refuses a skipped or repeated version with the current version", async () => {
    const store = await lists();
    const v1 = firstDeviceList(device(1), seed(1));
    const v2 = next(v1, [device(1), device(2)]);
    expect(await refusal(store.write(v2, options))).toEqual({
      code: "SVC_DEVICE_LIST_CONFLICT",
      currentVersion: 0,
    });
    await store.write(v1, options);
    expect(await refusal(store.write(next(v2, [device(1)]), options))).toEqual({
      code: "SVC_DEVICE_LIST_CONFLICT",
      currentVersion: 1,
    });
    expect(await refusal(store.write(v1, options))).toMatchObject({ currentVersion: 1 });
  });

  it("refuses a ghost signer, an unregistered device and a device with other keys", async () => {
    const store = await lists();
    const v1 = firstDeviceList(device(1), seed(1));
    await store.write(v1, options);
    const invalid = { code: "SVC_INVALID_DEVICE_LIST" };
    expect(await refusal(store.write(next(v1, [device(1), device(2)], 2), options))).toEqual(
      invalid,
    );
    const stranger = { ...device(4) };
    expect(await refusal(store.write(next(v1, [device(1), stranger]), options))).toEqual(invalid);
    const impostor = {
      address: device(2).address,
      identitySigningKey: device(3).identitySigningKey,
    };
    expect(await refusal(store.write(next(v1, [device(1), impostor]), options))).toEqual(invalid);
    expect((await store.latest("alice@example.org"))?.list.version).toBe(1);
  });
});

describe.runIf(hasTestPostgres())("two storages on one PostgreSQL", () => {
  it("let exactly one of two concurrent writers of version 2 win", async () => {
    const database = await createTestDatabase();
    const open = () =>
      openStorage({ databaseUrl: database.url, poolSize: 2, migrations: [devicesMigrations] });
    const a = await open();
    const b = await open();
    try {
      const first = createDeviceLists(a.db);
      const second = createDeviceLists(b.db);
      const v1 = firstDeviceList(device(1), seed(1));
      await first.write(v1, options);
      const results = await Promise.allSettled([
        first.write(next(v1, [device(1), device(2)]), options),
        second.write(next(v1, [device(1), device(3)]), options),
      ]);
      const won = results.filter((r) => r.status === "fulfilled");
      const lost = results.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]).toBeInstanceOf(DevicesError);
      expect((lost[0] as DevicesError).extra).toEqual({ currentVersion: 2 });
    } finally {
      await a.close();
      await b.close();
      await database.drop();
    }
  });
});
