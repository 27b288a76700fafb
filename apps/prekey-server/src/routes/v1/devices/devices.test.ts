import { decodeBase64, portableEd25519 } from "@svc/canonical";
import type { Storage } from "@svc/db";
import { createTestStorage } from "@svc/db/testing";
import { createDeviceLists } from "@svc/devices";
import { KtVerifier, memoryStore } from "@svc/kt-verify";
import {
  type DeviceEntry,
  type DeviceList,
  deviceListHash,
  deviceListToJson,
  firstDeviceList,
  signDeviceList,
} from "@svc/protocol";
import { jsonRequest, registerBody, type TestIdentity, testIdentity } from "@svc/test-client";
import { beforeAll, describe, expect, it } from "vitest";
import type { SvcApp } from "../../../app.js";
import { migrations } from "../../../index.js";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { warmTestDatabase } from "../../../test-support/warm-database.js";

const NOW = 1_763_780_000_000;
const ACCOUNT = "alice@example.org";

const entry = (device: TestIdentity): DeviceEntry => ({
  address: device.address,
  identitySigningKey: decodeBase64(device.identitySigningKey, 32),
});

/**
 * A verifier of the app's log (its keys from log_id) for one proof a read carries: each proof is
 * checked by a fresh one, which has no tree head to be consistent with.
 */
async function verifierOf(svc: SvcApp): Promise<Pick<KtVerifier, "verifyDeviceList">> {
  const log = await svc.app.request("/v1/kt/log_id");
  const { publicKey, vrfPublicKey } = (await log.json()) as Record<string, string>;
  const fresh = () =>
    new KtVerifier({
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
      now: () => NOW,
    });
  return { verifyDeviceList: (...args) => fresh().verifyDeviceList(...args) };
}

async function setup(options: { storage?: Storage } = {}) {
  const svc = await createTestApp({}, { now: () => NOW, ...options });
  const { app } = svc;
  const devices = [1, 2, 3].map((n) => testIdentity(`${ACCOUNT}:${n}`));
  for (const device of devices.slice(0, 2)) {
    const res = await app.request(
      "/v1/keys/register",
      jsonRequest("POST", registerBody(device, NOW, [1])),
    );
    expect(res.status).toBe(200);
  }
  const write = async (list: DeviceList, account = ACCOUNT) => {
    const path = `/v1/devices/${account}`;
    const res = await app.request(path, jsonRequest("POST", deviceListToJson(list)));
    return { status: res.status, body: await expectContract(res, "POST", path) };
  };
  const read = async (path: string) => {
    const res = await app.request(path);
    return {
      status: res.status,
      body: (await expectContract(res, "GET", path)) as Record<string, unknown>,
    };
  };
  const [one, two, three] = devices as [TestIdentity, TestIdentity, TestIdentity];
  const v1 = firstDeviceList(entry(one), one.seed);
  const next = (previous: DeviceList, members: TestIdentity[], signer: TestIdentity) =>
    signDeviceList(
      {
        account: ACCOUNT,
        version: previous.version + 1,
        previousHash: deviceListHash(previous),
        devices: members.map(entry),
        signer: signer.address,
      },
      signer.seed,
    );
  return { svc, write, read, one, two, three, v1, next };
}

describe("/v1/devices", () => {
  beforeAll(() => warmTestDatabase(createTestStorage));

  it("stores a chain of versions and serves each, the latest with a proof the verifier accepts", async () => {
    const { svc, write, read, one, two, v1, next } = await setup();
    const absent = await read(`/v1/devices/${ACCOUNT}`);
    expect(absent).toMatchObject({ status: 404, body: { code: "SVC_NO_DEVICE_LIST" } });
    expect(absent.body.ktProof).toBeDefined();

    expect(await write(v1)).toEqual({ status: 200, body: { ok: true, version: 1 } });
    const v2 = next(v1, [one, two], one);
    expect(await write(v2)).toEqual({ status: 200, body: { ok: true, version: 2 } });
    const v3 = next(v2, [two], two);
    expect(await write(v3)).toEqual({ status: 200, body: { ok: true, version: 3 } });

    const latest = await read(`/v1/devices/${ACCOUNT}`);
    expect(latest.status).toBe(200);
    const { ktProof, ...list } = latest.body;
    expect(list).toEqual(deviceListToJson(v3));
    expect((await read(`/v1/devices/${ACCOUNT}/versions/2`)).body).toEqual(deviceListToJson(v2));
    expect((await read(`/v1/devices/${ACCOUNT}/versions/4`)).status).toBe(404);

    const verifier = await verifierOf(svc);
    expect(await verifier.verifyDeviceList(ACCOUNT, deviceListHash(v3), ktProof)).toMatchObject({
      type: "inclusion",
    });
    await expect(
      verifier.verifyDeviceList(ACCOUNT, deviceListHash(v2), ktProof),
    ).rejects.toMatchObject({
      code: "KT_KEY_MISMATCH",
    });
  });

  it("serves no version the log does not prove: one stored but never logged is served after the next write logs it", async () => {
    const storage = await createTestStorage({ migrations });
    const { svc, write, read, one, two, three, v1, next } = await setup({ storage });
    expect((await write(v1)).status).toBe(200);
    // Version 2 stored as by a server that died before appending its leaf.
    const v2 = next(v1, [one, two], one);
    const registered = new Map([one, two].map((device) => [device.address, entry(device)]));
    await createDeviceLists(storage.db).write(v2, {
      verifier: portableEd25519,
      identityOf: async (address) => registered.get(address)?.identitySigningKey,
      now: NOW,
    });
    const before = await read(`/v1/devices/${ACCOUNT}`);
    expect(before).toMatchObject({ status: 200, body: { version: 1 } });
    const verifier = await verifierOf(svc);
    await expect(
      verifier.verifyDeviceList(ACCOUNT, deviceListHash(v1), before.body.ktProof),
    ).resolves.toMatchObject({ type: "inclusion" });

    // A device that saw version 1 writes its own version 2: refused, and version 2 is logged.
    const other = next(v1, [one, three], one);
    expect(await write(other)).toMatchObject({
      status: 409,
      body: { code: "SVC_DEVICE_LIST_CONFLICT", currentVersion: 2 },
    });
    const after = await read(`/v1/devices/${ACCOUNT}`);
    expect(after).toMatchObject({ status: 200, body: { version: 2 } });
    await expect(
      verifier.verifyDeviceList(ACCOUNT, deviceListHash(v2), after.body.ktProof),
    ).resolves.toMatchObject({ type: "inclusion" });
    await svc.close();
    await storage.close();
  });

  it("never answers a read during a write with a list the log does not prove", async () => {
    const { svc, write, read, one, two, v1, next } = await setup();
    expect((await write(v1)).status).toBe(200);
    const verifier = await verifierOf(svc);
    let previous = v1;
    for (let round = 0; round < 10; round++) {
      const list = next(previous, round % 2 === 0 ? [one, two] : [one], one);
      const [written, ...reads] = await Promise.all([
        write(list),
        ...Array.from({ length: 10 }, () => read(`/v1/devices/${ACCOUNT}`)),
      ]);
      expect(written.status).toBe(200);
      for (const answer of reads) {
        expect(answer.status).toBe(200);
        const served = answer.body.version === list.version ? list : previous;
        expect(answer.body.version).toBe(served.version);
        await verifier.verifyDeviceList(ACCOUNT, deviceListHash(served), answer.body.ktProof);
      }
      previous = list;
    }
  });

  it("refuses a ghost signer, an unregistered device and a wrong account with 400", async () => {
    const { write, one, two, three, v1, next } = await setup();
    await write(v1);
    const ghost = next(v1, [one, three], three);
    expect(await write(ghost)).toMatchObject({
      status: 400,
      body: { code: "SVC_INVALID_DEVICE_LIST" },
    });
    const unregistered = next(v1, [one, three], one);
    expect(await write(unregistered)).toMatchObject({
      status: 400,
      body: { code: "SVC_INVALID_DEVICE_LIST" },
    });
    expect(await write(next(v1, [one, two], one), "bob@example.org")).toMatchObject({
      status: 400,
      body: { code: "SVC_INVALID_DEVICE_LIST" },
    });
  });

  it("answers a version that is not the next one 409 with the current version", async () => {
    const { write, one, two, v1, next } = await setup();
    const v2 = next(v1, [one, two], one);
    expect(await write(v2)).toMatchObject({
      status: 409,
      body: { code: "SVC_DEVICE_LIST_CONFLICT", currentVersion: 0 },
    });
    await write(v1);
    await write(v2);
    expect(await write(v2)).toMatchObject({
      status: 409,
      body: { code: "SVC_DEVICE_LIST_CONFLICT", currentVersion: 2 },
    });
  });

  it("answers 400 for bodies that are not lists", async () => {
    const { svc } = await setup();
    for (const body of [{}, { account: ACCOUNT }, "[]"]) {
      const res = await svc.app.request(`/v1/devices/${ACCOUNT}`, jsonRequest("POST", body));
      expect(res.status).toBe(400);
    }
  });
});
