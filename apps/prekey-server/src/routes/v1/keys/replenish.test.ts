import { createTestStorage } from "@svc/db/testing";
import {
  type Json,
  jsonRequest,
  oneTimePreKeys,
  range,
  registerBody,
  replenishBody,
  seedOf,
  sign,
  testIdentity,
} from "@svc/test-client";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { warmTestDatabase } from "../../../test-support/warm-database.js";

const NOW = 1_763_780_000_000;
const PATH = "/v1/keys/replenish";
const alice = testIdentity("alice@example.com:1");

async function setup() {
  const svc = await createTestApp({ SVC_RATE_LIMIT: "off" }, { now: () => NOW });
  await svc.app.request("/v1/keys/register", jsonRequest("POST", registerBody(alice, NOW, [1])));
  const replenish = async (body: unknown) => {
    const res = await svc.app.request(PATH, jsonRequest("POST", body));
    return { status: res.status, body: (await expectContract(res, "POST", PATH)) as Json };
  };
  return { ...svc, replenish };
}

describe("POST /v1/keys/replenish", () => {
  beforeAll(() => warmTestDatabase(createTestStorage));

  it("appends one-time prekeys and answers the queue length", async () => {
    const { replenish } = await setup();
    expect(await replenish(replenishBody(alice, NOW, oneTimePreKeys([2, 3])))).toEqual({
      status: 200,
      body: { ok: true, remaining: 3, kemRemaining: 0 },
    });
    // A retried request is harmless: its entries are already queued.
    expect(await replenish(replenishBody(alice, NOW, oneTimePreKeys([2, 3])))).toEqual({
      status: 200,
      body: { ok: true, remaining: 3, kemRemaining: 0 },
    });
  });

  it("answers 404 SVC_NOT_REGISTERED for an unknown address", async () => {
    const { replenish } = await setup();
    const bob = testIdentity("bob");
    expect(await replenish(replenishBody(bob, NOW, oneTimePreKeys([1])))).toMatchObject({
      status: 404,
      body: { code: "SVC_NOT_REGISTERED" },
    });
  });

  it("verifies with the stored key over this route and body", async () => {
    const { replenish } = await setup();
    const fields = { address: alice.address, oneTimePreKeys: oneTimePreKeys([2]), signedAt: NOW };
    const cases = [
      sign("POST", PATH, fields, seedOf("another key")),
      sign("POST", "/v1/keys/register", fields, alice.seed),
      { ...replenishBody(alice, NOW, oneTimePreKeys([2])), oneTimePreKeys: oneTimePreKeys([3]) },
    ];
    for (const body of cases) {
      expect(await replenish(body)).toMatchObject({
        status: 401,
        body: { code: "SVC_BAD_SIGNATURE" },
      });
    }
  });

  it("refuses stale and future signedAt past 300000 ms", async () => {
    const { replenish } = await setup();
    for (const signedAt of [NOW - 300_001, NOW + 300_001]) {
      expect(await replenish(replenishBody(alice, signedAt, oneTimePreKeys([2])))).toMatchObject({
        status: 401,
        body: { code: "SVC_STALE_SIGNATURE" },
      });
    }
    expect((await replenish(replenishBody(alice, NOW - 300_000, oneTimePreKeys([2])))).status).toBe(
      200,
    );
  });

  it("enforces the caps, conflicts and schema", async () => {
    const { replenish } = await setup();
    const bad = [
      replenishBody(alice, NOW, oneTimePreKeys(range(10, 111))),
      replenishBody(alice, NOW, oneTimePreKeys([1], "other")),
    ];
    for (const body of bad) {
      expect(await replenish(body)).toMatchObject({
        status: 400,
        body: { code: "SVC_BAD_REQUEST" },
      });
    }
    const schema = [
      { ...replenishBody(alice, NOW, []), extra: 1 },
      // oneTimePreKeys may be left out (a replenish of KEM prekeys only), not be null.
      { ...replenishBody(alice, NOW, []), oneTimePreKeys: null },
      { ...replenishBody(alice, NOW, []), signedAt: "now" },
    ];
    for (const body of schema) {
      expect(await replenish(body)).toMatchObject({
        status: 400,
        body: { code: "SVC_BAD_REQUEST" },
      });
    }
    expect(await replenish(replenishBody(testIdentity("a,b"), NOW, []))).toMatchObject({
      status: 400,
      body: { code: "SVC_INVALID_ADDRESS" },
    });
  });
});
