import { portableEd25519 } from "@svc/canonical";
import { createTestStorage } from "@svc/db/testing";
import { createDeviceLists, type DeviceLists } from "@svc/devices";
import {
  type DeviceEntry,
  type DeviceList,
  deviceListHash,
  firstDeviceList,
  signDeviceList,
} from "@svc/protocol";
import { envelope, InboxClient, inProcess, msgIdOf, party, T0 } from "@svc/test-client";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { migrations } from "../../../index.js";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { warmTestDatabase } from "../../../test-support/warm-database.js";

const ACCOUNT = "alice@example.com";
const ALICE = `${ACCOUNT}:1`;
const ALICE_2 = `${ACCOUNT}:2`;
const BOB = "bob@example.com:1";
const PATH = "/v1/deposits";
const alice = party("alice");
const alice2 = party("alice-2");
const bob = party("bob");
const sender = party("sender");

const entry = (address: string, who = alice): DeviceEntry => ({
  address,
  identitySigningKey: who.signer.publicKey,
});

let client: InboxClient;
let lists: DeviceLists;
let v1: DeviceList;

/** Writes the version after `previous` holding `devices`, signed by alice:1. */
async function write(previous: DeviceList, devices: DeviceEntry[]): Promise<DeviceList> {
  const list = signDeviceList(
    {
      account: ACCOUNT,
      version: previous.version + 1,
      previousHash: deviceListHash(previous),
      devices,
      signer: ALICE,
    },
    alice.seed,
  );
  await lists.write(list, {
    verifier: portableEd25519,
    identityOf: async (address) => devices.find((d) => d.address === address)?.identitySigningKey,
  });
  return list;
}

beforeAll(() => warmTestDatabase(createTestStorage));
beforeEach(async () => {
  const storage = await createTestStorage({ migrations });
  const svc = await createTestApp({}, { now: () => T0, storage });
  client = new InboxClient(inProcess(svc.app), () => T0);
  await client.register(ALICE, alice);
  await client.register(ALICE_2, alice2);
  await client.register(BOB, bob);
  lists = createDeviceLists(storage.db);
  v1 = firstDeviceList(entry(ALICE), alice.seed);
  await lists.write(v1, {
    verifier: portableEd25519,
    identityOf: async () => alice.signer.publicKey,
  });
  return () => storage.close();
});

const item = (address: string, n: number) => ({
  address,
  body: client.depositBody(address, sender, envelope(n)),
});

async function fetched(address: string, owner = alice): Promise<string[]> {
  const res = await client.fetch(address, owner);
  const { items } = (await res.json()) as { items: Array<{ msgId: string }> };
  return items.map((i) => i.msgId);
}

async function batch(body: unknown) {
  const res = await client.send("POST", PATH, body);
  return { status: res.status, body: await expectContract(res, "POST", PATH) };
}

describe("POST /v1/deposits with deviceLists", () => {
  it("stores a batch whose named versions are the latest", async () => {
    const v2 = await write(v1, [entry(ALICE), entry(ALICE_2, alice2)]);
    const answer = await batch({
      deposits: [item(ALICE, 1), item(ALICE_2, 2), item(BOB, 3)],
      deviceLists: [{ account: ACCOUNT, version: v2.version }],
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      results: [{ status: 200 }, { status: 200 }, { status: 200 }],
    });
    expect(await fetched(ALICE_2, alice2)).toEqual([msgIdOf(envelope(2))]);
  });

  it("refuses a stale version with 409 and the latest versions, storing nothing", async () => {
    await write(v1, [entry(ALICE), entry(ALICE_2, alice2)]);
    const answer = await batch({
      deposits: [item(ALICE, 1), item(BOB, 3)],
      deviceLists: [
        { account: ACCOUNT, version: 1 },
        { account: "bob@example.com", version: 1 },
      ],
    });
    expect(answer).toEqual({
      status: 409,
      body: {
        name: "Conflict",
        code: "SVC_DEVICE_LIST_CHANGED",
        message: expect.stringContaining(ACCOUNT),
        deviceLists: [
          { account: ACCOUNT, version: 2 },
          { account: "bob@example.com", version: null },
        ],
      },
    });
    expect(await fetched(ALICE)).toEqual([]);
    expect(await fetched(BOB, bob)).toEqual([]);
  });

  it("refuses a deposit to a device the latest list does not hold, storing nothing", async () => {
    const answer = await batch({
      deposits: [item(ALICE, 1), item(ALICE_2, 2)],
      deviceLists: [{ account: ACCOUNT, version: 1 }],
    });
    expect(answer).toMatchObject({
      status: 409,
      body: {
        code: "SVC_DEVICE_LIST_CHANGED",
        message: `the latest device list does not hold ${ALICE_2}`,
        deviceLists: [{ account: ACCOUNT, version: 1 }],
      },
    });
    expect(await fetched(ALICE)).toEqual([]);
    expect(await fetched(ALICE_2, alice2)).toEqual([]);
  });

  it("refuses malformed deviceLists with 400 and a clear message", async () => {
    const deposits = [item(ALICE, 1)];
    const cases: Array<[unknown, string]> = [
      [{ account: ACCOUNT }, "deviceLists.0.version: a deviceLists entry is {account, version}"],
      [{ account: ACCOUNT, version: 0 }, "version must be at least 1"],
      [{ account: ACCOUNT, version: 1.5 }, "version must be an integer"],
      [{ account: 7, version: 1 }, "account must be a string"],
      [{ account: ACCOUNT, version: 1, extra: 1 }, "a deviceLists entry is {account, version}"],
    ];
    for (const [entry, message] of cases) {
      const answer = await batch({ deposits, deviceLists: [entry] });
      expect(answer, JSON.stringify(entry)).toMatchObject({
        status: 400,
        body: { code: "SVC_BAD_REQUEST", message: expect.stringContaining(message) },
      });
    }
    const twice = { account: ACCOUNT, version: 1 };
    expect(await batch({ deposits, deviceLists: [twice, twice] })).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining("each account once") },
    });
    expect(await batch({ deposits, deviceLists: {} })).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining("deviceLists must be an array") },
    });
    const many = Array.from({ length: 33 }, (_, n) => ({
      account: `a${n}@example.com`,
      version: 1,
    }));
    expect(await batch({ deposits, deviceLists: many })).toMatchObject({ status: 400 });
    expect(
      await batch({ deposits, deviceLists: [{ account: "no address", version: 1 }] }),
    ).toMatchObject({ status: 400, body: { code: "SVC_INVALID_ADDRESS" } });
    expect(await fetched(ALICE)).toEqual([]);
  });
});
