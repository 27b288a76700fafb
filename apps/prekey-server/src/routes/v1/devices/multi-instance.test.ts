import { decodeBase64 } from "@svc/canonical";
import { openStorage } from "@svc/db";
import { createTestDatabase, hasTestPostgres } from "@svc/db/testing";
import { KtVerifier, memoryStore } from "@svc/kt-verify";
import {
  type DeviceEntry,
  type DeviceList,
  deviceListHash,
  deviceListToJson,
  firstDeviceList,
  signDeviceList,
} from "@svc/protocol";
import { migrations } from "@svc/server-schema";
import { type Json, jsonRequest, registerBody, testIdentity } from "@svc/test-client";
import { afterEach, describe, expect, it } from "vitest";
import { startTestServer } from "../../../test-support/app.js";

const ACCOUNT = "alice@example.org";
const ROUNDS = 20;
const devices = [1, 2, 3].map((n) => testIdentity(`${ACCOUNT}:${n}`));
const [first, second, third] = devices as [
  (typeof devices)[0],
  (typeof devices)[0],
  (typeof devices)[0],
];
const entry = (device: (typeof devices)[0]): DeviceEntry => ({
  address: device.address,
  identitySigningKey: decodeBase64(device.identitySigningKey, 32),
});

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Two servers on one new PostgreSQL database. */
async function twoInstances() {
  const database = await createTestDatabase();
  cleanups.push(database.drop);
  const servers = [];
  for (let i = 0; i < 2; i++) {
    const storage = await openStorage({ databaseUrl: database.url, poolSize: 10, migrations });
    cleanups.push(() => storage.close());
    const server = await startTestServer({ SVC_RATE_LIMIT: "off" }, { storage });
    cleanups.push(() => server.stop()); // before its storage closes
    servers.push(server);
  }
  return servers as [(typeof servers)[0], (typeof servers)[0]];
}

async function post(url: string, list: DeviceList) {
  const res = await fetch(
    `${url}/v1/devices/${ACCOUNT}`,
    jsonRequest("POST", deviceListToJson(list)),
  );
  return { status: res.status, body: (await res.json()) as Json };
}

/** The next version after `previous` with `previous`'s devices, `toggled` added or removed. */
function toggling(previous: DeviceList, toggled: (typeof devices)[0]): DeviceList {
  const listed = previous.devices.some((d) => d.address === toggled.address);
  const members = devices.filter((d) =>
    d === toggled ? !listed : previous.devices.some((e) => e.address === d.address),
  );
  return signDeviceList(
    {
      account: ACCOUNT,
      version: previous.version + 1,
      previousHash: deviceListHash(previous),
      devices: members.map(entry),
      signer: first.address,
    },
    first.seed,
  );
}

/**
 * What `url` serves as the account's latest list: checked to be `expected`, with a KT proof a
 * verifier pinned to that server's log accepts for exactly that version.
 */
async function expectServed(url: string, expected: DeviceList): Promise<void> {
  const res = await fetch(`${url}/v1/devices/${ACCOUNT}`);
  expect(res.status).toBe(200);
  const { ktProof, ...served } = (await res.json()) as Json;
  expect(served).toEqual(deviceListToJson(expected));
  const version = await fetch(`${url}/v1/devices/${ACCOUNT}/versions/${expected.version}`);
  expect(await version.json()).toEqual(deviceListToJson(expected));
  const { publicKey, vrfPublicKey } = (await (await fetch(`${url}/v1/kt/log_id`)).json()) as Record<
    string,
    string
  >;
  const verifier = new KtVerifier({
    logPublicKey: decodeBase64(publicKey as string, 32),
    vrfPublicKey: decodeBase64(vrfPublicKey as string, 32),
    client: {
      sth: async () => {
        throw new Error("unused");
      },
      consistency: async () => [],
      logPublicKey: async () => new Uint8Array(),
      leaves: async () => [],
    },
    store: memoryStore(),
    now: () => Date.now(),
  });
  expect(await verifier.verifyDeviceList(ACCOUNT, deviceListHash(expected), ktProof)).toMatchObject(
    { type: "inclusion" },
  );
}

describe.runIf(hasTestPostgres())("device lists on two server instances, one database", () => {
  it("let exactly one of two concurrent writers of a version in, on either instance", async () => {
    const [a, b] = await twoInstances();
    for (const device of devices) {
      const res = await fetch(
        `${a.url}/v1/keys/register`,
        jsonRequest("POST", registerBody(device, Date.now(), [1])),
      );
      expect(res.status).toBe(200);
    }

    // Two first devices start the list at once: one of them owns it.
    const starts = [
      firstDeviceList(entry(first), first.seed),
      firstDeviceList(entry(second), second.seed),
    ];
    const started = await Promise.all([
      post(a.url, starts[0] as DeviceList),
      post(b.url, starts[1] as DeviceList),
    ]);
    expect(started.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(started.find((answer) => answer.status === 409)?.body).toMatchObject({
      code: "SVC_DEVICE_LIST_CONFLICT",
      currentVersion: 1,
    });
    let current = starts[started.findIndex((answer) => answer.status === 200)] as DeviceList;
    if (current.signer !== first.address) {
      // The rounds below are signed by the first device: the second one lets it in.
      const handover = signDeviceList(
        {
          account: ACCOUNT,
          version: 2,
          previousHash: deviceListHash(current),
          devices: [entry(first), entry(second)],
          signer: second.address,
        },
        second.seed,
      );
      expect((await post(a.url, handover)).status).toBe(200);
      current = handover;
    }

    for (let round = 0; round < ROUNDS; round++) {
      // Two different next versions, both from the current one, one posted to each instance.
      const candidates = [toggling(current, second), toggling(current, third)] as const;
      const flip = round % 2 === 1;
      const answers = await Promise.all([
        post(a.url, flip ? candidates[1] : candidates[0]),
        post(b.url, flip ? candidates[0] : candidates[1]),
      ]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
      const winnerAt = answers.findIndex((answer) => answer.status === 200);
      expect(answers[winnerAt]?.body).toEqual({ ok: true, version: current.version + 1 });
      expect(answers[1 - winnerAt]?.body).toMatchObject({
        code: "SVC_DEVICE_LIST_CONFLICT",
        currentVersion: current.version + 1,
      });
      current = (flip ? [candidates[1], candidates[0]] : candidates)[winnerAt] as DeviceList;
      await expectServed(a.url, current);
      await expectServed(b.url, current);
    }
  }, 120_000);
});
