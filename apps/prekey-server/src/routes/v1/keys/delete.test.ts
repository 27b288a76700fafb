import { createTestStorage } from "@svc/db/testing";
import {
  deleteBody,
  deletePath,
  type Json,
  jsonRequest,
  registerBody,
  seedOf,
  sign,
  testIdentity,
} from "@svc/test-client";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { warmTestDatabase } from "../../../test-support/warm-database.js";

const NOW = 1_763_780_000_000;
const alice = testIdentity("alice@example.com:1");
const bob = testIdentity("bob@example.com:1");

async function setup() {
  const svc = await createTestApp({ SVC_RATE_LIMIT: "off" }, { now: () => NOW });
  for (const identity of [alice, bob]) {
    await svc.app.request(
      "/v1/keys/register",
      jsonRequest("POST", registerBody(identity, NOW, [1, 2])),
    );
  }
  const remove = async (path: string, body: unknown) => {
    const res = await svc.app.request(path, jsonRequest("DELETE", body));
    return { status: res.status, body: (await expectContract(res, "DELETE", path)) as Json };
  };
  const count = async (address: string) =>
    ((await (await svc.app.request(`/v1/keys/count/${address}`)).json()) as Json).count;
  return { ...svc, remove, count };
}

describe("DELETE /v1/keys/:address", () => {
  beforeAll(() => warmTestDatabase(createTestStorage));

  it("removes identity, signed prekey and queue", async () => {
    const { app, remove, count } = await setup();
    expect(await remove(deletePath(alice), deleteBody(alice, NOW))).toEqual({
      status: 200,
      body: { ok: true },
    });
    expect(await count(alice.address)).toBe(0);
    expect((await app.request(`/v1/keys/bundle/${alice.address}`)).status).toBe(404);
    expect(await count(bob.address)).toBe(2);
    // Identity rotation: delete, then register other keys.
    const rotated = testIdentity(alice.address, "rotated");
    const res = await app.request(
      "/v1/keys/register",
      jsonRequest("POST", registerBody(rotated, NOW)),
    );
    expect(res.status).toBe(200);
  });

  it("refuses a signature replayed on another address or made by another key", async () => {
    const { remove, count } = await setup();
    expect(await remove(deletePath(bob), deleteBody(alice, NOW))).toMatchObject({
      status: 401,
      body: { code: "SVC_BAD_SIGNATURE" },
    });
    const byOther = sign("DELETE", deletePath(alice), { signedAt: NOW }, seedOf("x"));
    expect(await remove(deletePath(alice), byOther)).toMatchObject({
      status: 401,
      body: { code: "SVC_BAD_SIGNATURE" },
    });
    expect(await count(bob.address)).toBe(2);
    expect(await count(alice.address)).toBe(2);
  });

  it("signs the path as sent", async () => {
    const { app } = await setup();
    const wide = testIdentity("ｗｉｄｅ", "wide");
    const svcPath = `/v1/keys/${encodeURIComponent("ｗｉｄｅ")}`;
    await app.request("/v1/keys/register", jsonRequest("POST", registerBody(wide, NOW)));
    const signedForNormalized = deleteBody(wide, NOW, "/v1/keys/wide");
    const refused = await app.request(svcPath, jsonRequest("DELETE", signedForNormalized));
    expect(refused.status).toBe(401);
    const accepted = await app.request(
      svcPath,
      jsonRequest("DELETE", deleteBody(wide, NOW, svcPath)),
    );
    expect(await expectContract(accepted, "DELETE", svcPath)).toEqual({ ok: true });
  });

  it("answers 404 for an unknown address, 400 for an invalid one or a bad body, 401 when stale", async () => {
    const { remove } = await setup();
    const nobody = testIdentity("nobody");
    expect(await remove(deletePath(nobody), deleteBody(nobody, NOW))).toMatchObject({
      status: 404,
      body: { code: "SVC_NOT_REGISTERED" },
    });
    expect(await remove("/v1/keys/a,b", deleteBody(alice, NOW, "/v1/keys/a,b"))).toMatchObject({
      status: 400,
      body: { code: "SVC_INVALID_ADDRESS" },
    });
    for (const body of [{ ...deleteBody(alice, NOW), address: "x" }, { signedAt: NOW }, "nope"]) {
      expect(await remove(deletePath(alice), body)).toMatchObject({
        status: 400,
        body: { code: "SVC_BAD_REQUEST" },
      });
    }
    for (const signedAt of [NOW - 300_001, NOW + 300_001]) {
      expect(await remove(deletePath(alice), deleteBody(alice, signedAt))).toMatchObject({
        status: 401,
        body: { code: "SVC_STALE_SIGNATURE" },
      });
    }
  });
});
