import { decodeBase64, encodeBase64 } from "@svc/canonical";
import { createTestStorage } from "@svc/db/testing";
import { errorResponder } from "@svc/http";
import {
  deleteBody,
  type Json,
  jsonRequest,
  oneTimePreKeys,
  range,
  registerBody,
  replenishBody,
  testIdentity,
} from "@svc/test-client";
import { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import type { AppEnv } from "../../../app-env.js";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { warmTestDatabase } from "../../../test-support/warm-database.js";
import type { KeysHooks } from "./context.js";
import { registerKeysRoutes } from "./index.js";

const NOW = 1_763_780_000_000;
const alice = testIdentity("alice@example.com:1");

async function setup() {
  const svc = await createTestApp({ SVC_RATE_LIMIT: "off", SVC_KT: "off" }, { now: () => NOW });
  const post = (path: string, body: Json) => svc.app.request(path, jsonRequest("POST", body));
  const bundle = async (address: string) => {
    const path = `/v1/keys/bundle/${address}`;
    const res = await svc.app.request(path);
    return { status: res.status, body: (await expectContract(res, "GET", path)) as Json };
  };
  return { ...svc, post, bundle };
}

describe("GET /v1/keys/bundle/:address", () => {
  beforeAll(() => warmTestDatabase(createTestStorage));

  it("serves the registered keys and consumes one-time prekeys by arrival, not keyId", async () => {
    const { post, bundle } = await setup();
    expect((await post("/v1/keys/register", registerBody(alice, NOW, [9, 2]))).status).toBe(200);
    const more = replenishBody(alice, NOW, oneTimePreKeys([5, 1]));
    expect((await post("/v1/keys/replenish", more)).status).toBe(200);
    const first = await bundle(alice.address);
    expect(first).toEqual({
      status: 200,
      body: {
        identitySigningKey: alice.identitySigningKey,
        identityDHKey: alice.identityDHKey,
        signedPreKey: alice.signedPreKey,
        oneTimePreKey: oneTimePreKeys([9])[0],
      },
    });
    const order = [];
    for (let i = 0; i < 3; i++)
      order.push(((await bundle(alice.address)).body.oneTimePreKey as Json).keyId);
    expect(order).toEqual([2, 5, 1]);
    const empty = await bundle(alice.address);
    expect(empty.status).toBe(200);
    expect(empty.body).not.toHaveProperty("oneTimePreKey");
    expect(empty.body.signedPreKey).toEqual(alice.signedPreKey);
  });

  it("answers 404 SVC_NOT_REGISTERED for an unknown address", async () => {
    const { bundle } = await setup();
    expect(await bundle("nobody")).toMatchObject({
      status: 404,
      body: { code: "SVC_NOT_REGISTERED" },
    });
  });

  it("normalizes the path address and refuses invalid ones", async () => {
    const { post, bundle } = await setup();
    await post("/v1/keys/register", registerBody(testIdentity("alice"), NOW, [1]));
    const wide = await bundle(encodeURIComponent("ａｌｉｃｅ"));
    expect((wide.body.oneTimePreKey as Json).keyId).toBe(1);
    for (const bad of ["a,b", "%2Fx", "-a", "%E0%A4%A"]) {
      expect(await bundle(bad)).toMatchObject({
        status: 400,
        body: { code: "SVC_INVALID_ADDRESS" },
      });
    }
  });

  it("hands out each one-time prekey once under 200 concurrent fetches", async () => {
    const { post, bundle } = await setup();
    await post("/v1/keys/register", registerBody(alice, NOW, range(0, 100)));
    await post("/v1/keys/replenish", replenishBody(alice, NOW, oneTimePreKeys(range(100, 150))));
    const results = await Promise.all(range(0, 220).map(() => bundle(alice.address)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const handed = results.flatMap((r) =>
      r.body.oneTimePreKey ? [(r.body.oneTimePreKey as Json).keyId] : [],
    );
    expect(new Set(handed).size).toBe(handed.length);
    expect(handed).toHaveLength(150);
    expect(results.filter((r) => !("oneTimePreKey" in r.body))).toHaveLength(70);
  });
});

describe("key transparency hooks", () => {
  async function withHooks(hooks: KeysHooks) {
    const svc = await createTestApp({ SVC_RATE_LIMIT: "off" }, { now: () => NOW });
    const app = new Hono<AppEnv>();
    app.onError(errorResponder(svc.services.logger));
    registerKeysRoutes(app, svc.services, hooks);
    return app;
  }

  const hash = encodeBase64(new Uint8Array(32).fill(7));
  const proof = (type: "inclusion" | "absence") => ({
    sth: {
      treeSize: 1,
      timestampMs: NOW,
      rootHash: hash,
      indexRoot: hash,
      logId: hash,
      signature: encodeBase64(new Uint8Array(64)),
    },
    body:
      type === "absence"
        ? { type, indexProof: { depth: 0, bitmap: hash, siblings: [] } }
        : {
            type,
            leaf: hash,
            leafIndex: 0,
            auditPath: [],
            indexProof: { depth: 0, bitmap: hash, siblings: [] },
          },
  });

  it("reports identity creation once and deletion, before responding", async () => {
    const changes: unknown[] = [];
    const app = await withHooks({
      async identityChanged(change) {
        changes.push({ ...change });
      },
    });
    const register = () =>
      app.request("/v1/keys/register", jsonRequest("POST", registerBody(alice, NOW)));
    expect((await register()).status).toBe(200);
    expect((await register()).status).toBe(200);
    const res = await app.request(
      `/v1/keys/${alice.address}`,
      jsonRequest("DELETE", deleteBody(alice, NOW)),
    );
    expect(await expectContract(res, "DELETE", `/v1/keys/${alice.address}`)).toEqual({ ok: true });
    const keys = {
      identitySigningKey: decodeBase64(alice.identitySigningKey),
      identityDHKey: decodeBase64(alice.identityDHKey),
    };
    expect(changes).toEqual([
      { address: alice.address, kind: "created", ...keys },
      { address: alice.address, kind: "deleted", ...keys },
    ]);
  });

  it("asks for a proof of exactly its answer and attaches it as ktProof, to the 200 and the 404", async () => {
    const asked: unknown[] = [];
    const app = await withHooks({
      async bundleProof(address, answer) {
        asked.push([address, answer && encodeBase64(answer.identitySigningKey)]);
        const json = proof(answer ? "inclusion" : "absence");
        return { json, bytes: new TextEncoder().encode(JSON.stringify(json)) };
      },
    });
    await app.request("/v1/keys/register", jsonRequest("POST", registerBody(alice, NOW, [1])));
    const path = `/v1/keys/bundle/${alice.address}`;
    const found = (await expectContract(await app.request(path), "GET", path)) as Json;
    expect(found.ktProof).toEqual(proof("inclusion"));
    expect((found.oneTimePreKey as Json).keyId).toBe(1);
    const missing = await app.request("/v1/keys/bundle/nobody");
    expect(missing.status).toBe(404);
    expect(await expectContract(missing, "GET", "/v1/keys/bundle/nobody")).toMatchObject({
      code: "SVC_NOT_REGISTERED",
      ktProof: proof("absence"),
    });
    expect(asked).toEqual([
      [alice.address, alice.identitySigningKey],
      ["nobody", undefined],
    ]);
  });

  it("answers without ktProof when no proof shows its answer", async () => {
    const app = await withHooks({ bundleProof: async () => undefined });
    await app.request("/v1/keys/register", jsonRequest("POST", registerBody(alice, NOW, [1])));
    const path = `/v1/keys/bundle/${alice.address}`;
    const found = (await expectContract(await app.request(path), "GET", path)) as Json;
    expect(found.identitySigningKey).toBe(alice.identitySigningKey);
    expect(found).not.toHaveProperty("ktProof");
    const missing = await app.request("/v1/keys/bundle/nobody");
    expect(await expectContract(missing, "GET", "/v1/keys/bundle/nobody")).not.toHaveProperty(
      "ktProof",
    );
  });
});
