import { createHash } from "node:crypto";
import { decodeBase64, encodeBase64 } from "@svc/canonical";
import { createTestStorage } from "@svc/db/testing";
import { errorResponder } from "@svc/http";
import type { KemPreKeyJson } from "@svc/protocol";
import {
  deleteBody,
  type Json,
  jsonRequest,
  kemPreKey,
  kemPreKeys,
  oneTimePreKeys,
  range,
  registerFields,
  signedBodyBy,
  type TestIdentity,
  testIdentity,
} from "@svc/test-client";
import { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import type { AppEnv } from "../../../app-env.js";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { warmTestDatabase } from "../../../test-support/warm-database.js";
import type { IdentityChange, KeysHooks } from "./context.js";
import { registerKeysRoutes } from "./index.js";

const NOW = 1_763_780_000_000;
const alice = testIdentity("alice@example.com:1");
const mallory = testIdentity("mallory");

/** A register body of `identity` with EC one-time prekeys `ecIds` and the given KEM members. */
function register(identity: TestIdentity, ecIds: number[], kem: Json = {}, signedAt = NOW): Json {
  const fields = { ...registerFields(identity, signedAt, ecIds), ...kem };
  return signedBodyBy(identity.signer, "POST", "/v1/keys/register", fields);
}

function replenish(identity: TestIdentity, members: Json, signedAt = NOW): Json {
  const fields = { address: identity.address, ...members, signedAt };
  return signedBodyBy(identity.signer, "POST", "/v1/keys/replenish", fields);
}

/** alice's post-quantum register: last-resort KEM key 1000 and one-time KEM prekeys `kemIds`. */
const pq = (kemIds: number[], ecIds: number[] = []) =>
  register(alice, ecIds, {
    kemLastResortPreKey: kemPreKey(alice, 1000, "last-resort"),
    kemPreKeys: kemPreKeys(alice, kemIds),
  });

const sha256 = (base64: string) =>
  new Uint8Array(createHash("sha256").update(decodeBase64(base64)).digest());

async function setup(app?: Hono<AppEnv>) {
  const svc = await createTestApp({ SVC_RATE_LIMIT: "off", SVC_KT: "off" }, { now: () => NOW });
  const target = app ?? svc.app;
  const post = async (path: string, body: unknown) => {
    const res = await target.request(path, jsonRequest("POST", body));
    return { status: res.status, body: (await expectContract(res, "POST", path)) as Json };
  };
  const get = async (path: string) => {
    const res = await target.request(path);
    return { status: res.status, body: (await expectContract(res, "GET", path)) as Json };
  };
  const bundle = async () => (await get(`/v1/keys/bundle/${alice.address}`)).body;
  const count = async () => (await get(`/v1/keys/count/${alice.address}`)).body;
  return { ...svc, post, get, bundle, count };
}

describe("ML-KEM prekeys", () => {
  beforeAll(() => warmTestDatabase(createTestStorage));

  it("serves one-time KEM prekeys FIFO with the EC ones, then the last-resort key, never removed", async () => {
    const { post, bundle, count } = await setup();
    expect(await post("/v1/keys/register", pq([7, 3], [1]))).toEqual({
      status: 200,
      body: { ok: true },
    });
    expect(
      await post("/v1/keys/replenish", replenish(alice, { kemPreKeys: kemPreKeys(alice, [5]) })),
    ).toEqual({ status: 200, body: { ok: true, remaining: 1, kemRemaining: 3 } });
    expect(await count()).toEqual({ count: 1, kemCount: 3 });
    expect(await post("/v1/keys/replenish", replenish(alice, {}))).toEqual({
      status: 200,
      body: { ok: true, remaining: 1, kemRemaining: 3 },
    });

    expect(await bundle()).toEqual({
      identitySigningKey: alice.identitySigningKey,
      identityDHKey: alice.identityDHKey,
      signedPreKey: alice.signedPreKey,
      oneTimePreKey: oneTimePreKeys([1])[0],
      kemPreKey: { ...kemPreKey(alice, 7), lastResort: false },
    });
    const served = [];
    for (let i = 0; i < 4; i++) {
      const body = await bundle();
      expect(body).not.toHaveProperty("oneTimePreKey");
      const kem = body.kemPreKey as Json;
      served.push([kem.keyId, kem.lastResort]);
    }
    expect(served).toEqual([
      [3, false],
      [5, false],
      [1000, true],
      [1000, true],
    ]);
    expect((await bundle()).kemPreKey).toEqual({
      ...kemPreKey(alice, 1000, "last-resort"),
      lastResort: true,
    });
    expect(await count()).toEqual({ count: 0, kemCount: 0 });
  });

  it("leaves a classic identity's answers as they were: no kemPreKey, kemCount 0", async () => {
    const { post, bundle, count } = await setup();
    await post("/v1/keys/register", register(alice, [1]));
    expect(await bundle()).not.toHaveProperty("kemPreKey");
    expect(await count()).toEqual({ count: 0, kemCount: 0 });
  });

  it("keeps the last-resort key when a later register omits it, and rotates it by replenish", async () => {
    const { post, bundle } = await setup();
    await post("/v1/keys/register", pq([]));
    expect((await post("/v1/keys/register", register(alice, [1]))).status).toBe(200);
    expect(((await bundle()).kemPreKey as Json).keyId).toBe(1000);
    const rotated = kemPreKey(alice, 2000, "rotated");
    const res = await post(
      "/v1/keys/replenish",
      replenish(alice, { kemLastResortPreKey: rotated }),
    );
    expect(res).toEqual({ status: 200, body: { ok: true, remaining: 0, kemRemaining: 0 } });
    expect((await bundle()).kemPreKey).toEqual({ ...rotated, lastResort: true });
  });

  it("refuses a KEM key or signature of the wrong length with 400 SVC_INVALID_KEM_PREKEY", async () => {
    const { post, count } = await setup();
    const good = kemPreKey(alice, 1);
    const short = { ...good, publicKey: encodeBase64(new Uint8Array(1567)) };
    const long = { ...good, publicKey: encodeBase64(new Uint8Array(1569)) };
    const badSignature = { ...good, signature: encodeBase64(new Uint8Array(63)) };
    const notBase64 = { ...good, publicKey: "not base64!" };
    for (const bad of [short, long, badSignature, notBase64]) {
      for (const body of [
        register(alice, [], { kemLastResortPreKey: bad }),
        register(alice, [], {
          kemLastResortPreKey: good,
          kemPreKeys: [good, { ...bad, keyId: 2 }],
        }),
      ]) {
        expect(await post("/v1/keys/register", body)).toMatchObject({
          status: 400,
          body: { code: "SVC_INVALID_KEM_PREKEY" },
        });
      }
    }
    await post("/v1/keys/register", register(alice, []));
    for (const body of [
      replenish(alice, { kemLastResortPreKey: short }),
      replenish(alice, { kemLastResortPreKey: good, kemPreKeys: [badSignature] }),
    ]) {
      expect(await post("/v1/keys/replenish", body)).toMatchObject({
        status: 400,
        body: { code: "SVC_INVALID_KEM_PREKEY" },
      });
    }
    expect(await count()).toEqual({ count: 0, kemCount: 0 });
  });

  it("refuses a KEM key not signed by the identity over its raw bytes, naming the entry", async () => {
    const { post, count, bundle } = await setup();
    const foreign = kemPreKey(mallory, 1);
    const unsigned = { ...kemPreKey(alice, 2), signature: kemPreKey(alice, 3).signature };
    expect(
      await post("/v1/keys/register", register(alice, [1], { kemLastResortPreKey: foreign })),
    ).toEqual({
      status: 400,
      body: {
        name: "BadRequest",
        code: "SVC_INVALID_KEM_PREKEY",
        message: "kemLastResortPreKey.signature does not verify with the identity signing key",
      },
    });
    const fields = {
      ...registerFields(alice, NOW, [1]),
      kemLastResortPreKey: kemPreKey(alice, 1000, "last-resort"),
      kemPreKeys: [kemPreKey(alice, 1), unsigned],
    };
    expect(
      await post(
        "/v1/keys/register",
        signedBodyBy(alice.signer, "POST", "/v1/keys/register", fields),
      ),
    ).toMatchObject({
      status: 400,
      body: { code: "SVC_INVALID_KEM_PREKEY", message: expect.stringMatching(/^kemPreKeys\.1\./) },
    });
    expect(await count()).toEqual({ count: 0, kemCount: 0 });

    await post("/v1/keys/register", pq([1]));
    for (const members of [
      { kemPreKeys: [kemPreKey(mallory, 2)] },
      { kemLastResortPreKey: foreign },
    ]) {
      expect(await post("/v1/keys/replenish", replenish(alice, members))).toMatchObject({
        status: 400,
        body: { code: "SVC_INVALID_KEM_PREKEY" },
      });
    }
    expect(((await bundle()).kemPreKey as Json).keyId).toBe(1);
  });

  it("checks the body's signature and freshness before the KEM signatures", async () => {
    const { post } = await setup();
    const foreign = { kemLastResortPreKey: kemPreKey(mallory, 1) };
    expect(
      await post("/v1/keys/register", register(alice, [], foreign, NOW - 300_001)),
    ).toMatchObject({ status: 401, body: { code: "SVC_STALE_SIGNATURE" } });
    const tampered = { ...register(alice, [], foreign), kemPreKeys: [] };
    expect(await post("/v1/keys/register", tampered)).toMatchObject({
      status: 401,
      body: { code: "SVC_BAD_SIGNATURE" },
    });
  });

  it("refuses unknown members in a KEM entry and a lastResort flag on an upload", async () => {
    const { post } = await setup();
    const entry = kemPreKey(alice, 1);
    // The schema is checked before the signature: a signature of another body will do.
    const { signature } = register(alice, []);
    for (const kem of [
      { kemLastResortPreKey: { ...entry, extra: 1 } },
      { kemLastResortPreKey: { ...entry, lastResort: true } },
      { kemLastResortPreKey: { ...entry, keyId: -1 } },
      { kemLastResortPreKey: { ...entry, keyId: 1.5 } },
      { kemLastResortPreKey: [entry] },
      { kemPreKeys: entry },
    ]) {
      const body = { ...registerFields(alice, NOW), ...kem, signature };
      expect(await post("/v1/keys/register", body)).toMatchObject({
        status: 400,
        body: { code: "SVC_BAD_REQUEST" },
      });
    }
  });

  it("takes one-time KEM prekeys only beside a last-resort key", async () => {
    const { post, count } = await setup();
    const orphans = { kemPreKeys: kemPreKeys(alice, [1]) };
    expect(await post("/v1/keys/register", register(alice, [1], orphans))).toMatchObject({
      status: 400,
      body: { code: "SVC_BAD_REQUEST" },
    });
    await post("/v1/keys/register", register(alice, [1]));
    expect(await post("/v1/keys/replenish", replenish(alice, orphans))).toMatchObject({
      status: 400,
      body: { code: "SVC_BAD_REQUEST" },
    });
    expect(await count()).toEqual({ count: 1, kemCount: 0 });
  });

  it("takes 100 KEM prekeys per request, queues 1000 and refuses the whole request beyond", async () => {
    const { post, count } = await setup();
    expect(await post("/v1/keys/register", pq(range(0, 101)))).toMatchObject({
      status: 400,
      body: { code: "SVC_BAD_REQUEST", message: expect.stringMatching(/at most 100/) },
    });
    expect((await post("/v1/keys/register", pq(range(0, 100), range(0, 100)))).status).toBe(200);
    for (let from = 100; from < 1000; from += 100) {
      const body = replenish(alice, { kemPreKeys: kemPreKeys(alice, range(from, from + 100)) });
      expect((await post("/v1/keys/replenish", body)).body.kemRemaining).toBe(from + 100);
    }
    const over = replenish(alice, {
      oneTimePreKeys: oneTimePreKeys([500]),
      kemPreKeys: kemPreKeys(alice, [1000]),
    });
    expect(await post("/v1/keys/replenish", over)).toMatchObject({
      status: 400,
      body: { code: "SVC_BAD_REQUEST", message: expect.stringMatching(/at most 1000/) },
    });
    const conflict = replenish(alice, { kemPreKeys: kemPreKeys(alice, [3], "other") });
    expect(await post("/v1/keys/replenish", conflict)).toMatchObject({
      status: 400,
      body: { code: "SVC_BAD_REQUEST", message: expect.stringMatching(/already queued/) },
    });
    expect(await count()).toEqual({ count: 100, kemCount: 1000 });
  }, 60_000);

  it("takes a full upload under 256 KiB on register and replenish, 413 beyond; delete stays at 64 KiB", async () => {
    const { post, count, app } = await setup();
    const full = pq(range(0, 100), range(0, 100));
    expect(new TextEncoder().encode(JSON.stringify(full)).length).toBeGreaterThan(200 * 1024);
    expect(await post("/v1/keys/register", full)).toEqual({ status: 200, body: { ok: true } });
    const padding = "x".repeat(256 * 1024);
    expect(await post("/v1/keys/register", { ...full, padding })).toMatchObject({
      status: 413,
      body: { code: "SVC_TOO_LARGE" },
    });
    const more = replenish(alice, {
      oneTimePreKeys: oneTimePreKeys(range(100, 200)),
      kemPreKeys: kemPreKeys(alice, range(100, 200)),
      kemLastResortPreKey: kemPreKey(alice, 1000, "last-resort"),
    });
    expect(await post("/v1/keys/replenish", more)).toEqual({
      status: 200,
      body: { ok: true, remaining: 200, kemRemaining: 200 },
    });
    expect(await post("/v1/keys/replenish", { ...more, padding })).toMatchObject({
      status: 413,
      body: { code: "SVC_TOO_LARGE" },
    });
    const path = `/v1/keys/${alice.address}`;
    const big = { ...deleteBody(alice, NOW), padding: "x".repeat(70_000) };
    const res = await app.request(path, jsonRequest("DELETE", big));
    expect(res.status).toBe(413);
    expect(await count()).toEqual({ count: 200, kemCount: 200 });
  });

  it("counts KEM prekeys served by kind and those left", async () => {
    const { post, bundle, app } = await setup();
    await post("/v1/keys/register", pq([1, 2, 3]));
    for (let i = 0; i < 5; i++) await bundle();
    const page = await (await app.request("/metrics")).text();
    expect(page).toMatch(/^svc_kem_prekeys_served_total\{kind="one_time"\} 3$/m);
    expect(page).toMatch(/^svc_kem_prekeys_served_total\{kind="last_resort"\} 2$/m);
    expect(page).toMatch(/^svc_kem_prekeys_left 0$/m);
    await post("/v1/keys/replenish", replenish(alice, { kemPreKeys: kemPreKeys(alice, [4, 5]) }));
    expect(await (await app.request("/metrics")).text()).toMatch(/^svc_kem_prekeys_left 2$/m);
  });
});

describe("ML-KEM prekeys and key transparency", () => {
  async function withHooks(hooks: KeysHooks) {
    const svc = await createTestApp({ SVC_RATE_LIMIT: "off" }, { now: () => NOW });
    const app = new Hono<AppEnv>();
    app.onError(errorResponder(svc.services.logger));
    registerKeysRoutes(app, svc.services, hooks);
    return setup(app);
  }

  const keys = {
    identitySigningKey: decodeBase64(alice.identitySigningKey),
    identityDHKey: decodeBase64(alice.identityDHKey),
  };
  const lastResort = kemPreKey(alice, 1000, "last-resort");
  const rotated = kemPreKey(alice, 2000, "rotated");
  const change = (kind: IdentityChange["kind"], key?: KemPreKeyJson) => ({
    address: alice.address,
    kind,
    ...keys,
    ...(key ? { kemKeyHash: sha256(key.publicKey) } : {}),
  });

  it("reports a created identity with its KEM key's hash and each change of that key", async () => {
    const changes: IdentityChange[] = [];
    const { post } = await withHooks({
      async identityChanged(identityChange) {
        changes.push({ ...identityChange });
      },
    });
    await post("/v1/keys/register", pq([1]));
    await post("/v1/keys/register", pq([2]));
    await post("/v1/keys/register", register(alice, [3]));
    await post("/v1/keys/replenish", replenish(alice, { kemLastResortPreKey: rotated }));
    await post("/v1/keys/replenish", replenish(alice, { kemLastResortPreKey: rotated }));
    await post("/v1/keys/register", pq([]));
    expect(changes).toEqual([
      change("created", lastResort),
      change("updated", rotated),
      change("updated", lastResort),
    ]);
  });

  it("reports a KEM key set on a classic identity as an update", async () => {
    const changes: IdentityChange[] = [];
    const { post } = await withHooks({
      async identityChanged(identityChange) {
        changes.push({ ...identityChange });
      },
    });
    await post("/v1/keys/register", register(alice, []));
    await post("/v1/keys/register", pq([]));
    expect(changes).toEqual([change("created"), change("updated", lastResort)]);
  });

  it("asks for a proof showing the last-resort key's hash, whichever KEM prekey is served", async () => {
    const asked: Array<[string, Uint8Array | undefined]> = [];
    const { post, get, bundle } = await withHooks({
      async bundleProof(address, answer) {
        asked.push([address, answer?.kemKeyHash]);
        return undefined;
      },
    });
    await post("/v1/keys/register", pq([1]));
    expect(((await bundle()).kemPreKey as Json).lastResort).toBe(false);
    expect(((await bundle()).kemPreKey as Json).lastResort).toBe(true);
    const bob = testIdentity("bob");
    await post("/v1/keys/register", register(bob, []));
    expect((await get("/v1/keys/bundle/bob")).status).toBe(200);
    expect(asked).toEqual([
      [alice.address, sha256(lastResort.publicKey)],
      [alice.address, sha256(lastResort.publicKey)],
      ["bob", undefined],
    ]);
  });
});
