import { createHash } from "node:crypto";
import {
  decodeBase64,
  ed25519KeyPairFromSeed,
  ed25519Sign,
  encodeBase64,
  x25519PublicKeyFromSeed,
} from "@svc/canonical";
import { createTestStorage } from "@svc/db/testing";
import { errorResponder } from "@svc/http";
import { createSthSigner, KtLog } from "@svc/kt-log";
import { httpLogClient, KtVerifier, KtVerifyError } from "@svc/kt-verify";
import { signedBody } from "@svc/protocol";
import { migrations } from "@svc/server-schema";
import { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import type { AppEnv } from "../../../app-env.js";
import { createTestApp, TEST_KT_VRF_KEY } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { registerKeysRoutes } from "../keys/index.js";
import { createKtHooks } from "./hooks.js";

// Migrating the first test database of a file is slow: pay it outside the tests' time limit.
beforeAll(async () => (await createTestStorage({ migrations })).close());

const SEED = new Uint8Array(32).fill(11);
const ENV = { SVC_KT_SIGNING_KEY: encodeBase64(SEED), SVC_RATE_LIMIT: "off" };
type Json = Record<string, unknown>;

const seedOf = (label: string) =>
  new Uint8Array(32).map((_, i) => (label.charCodeAt(i % label.length) * (i + 7)) & 0xff);

function identity(address: string) {
  const seed = seedOf(`${address}/sign`);
  const spk = x25519PublicKeyFromSeed(seedOf(`${address}/spk`));
  return {
    address,
    seed,
    identitySigningKey: ed25519KeyPairFromSeed(seed).publicKey,
    identityDHKey: x25519PublicKeyFromSeed(seedOf(`${address}/dh`)),
    signedPreKey: {
      keyId: 1,
      publicKey: encodeBase64(spk),
      signature: encodeBase64(ed25519Sign(spk, seed)),
    },
  };
}

/**
 * The app (KT routes) plus a keys-routes app wired with createKtHooks over a log on the same
 * database, as the lead wires them in app.ts; and a verifier talking to the app.
 */
async function setup(options: { proofLagMs?: number } = {}) {
  const svc = await createTestApp(ENV);
  const log = await KtLog.open({
    storage: svc.services.storage,
    signer: createSthSigner(SEED),
    vrfSecretKey: decodeBase64(TEST_KT_VRF_KEY, 32),
    ...options,
  });
  const hooks = createKtHooks(log);
  const keys = new Hono<AppEnv>();
  registerKeysRoutes(keys, svc.services, hooks);
  keys.onError(errorResponder(svc.services.logger));
  const client = httpLogClient("http://svc.test", (url) => Promise.resolve(svc.app.request(url)));
  const verifier = new KtVerifier({
    logPublicKey: log.publicKey,
    vrfPublicKey: log.vrfPublicKey,
    client,
  });

  async function register(address: string) {
    const id = identity(address);
    const fields = {
      address,
      identitySigningKey: encodeBase64(id.identitySigningKey),
      identityDHKey: encodeBase64(id.identityDHKey),
      signedPreKey: id.signedPreKey,
      signedAt: Date.now(),
    };
    const res = await keys.request("/v1/keys/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(signedBody("POST", "/v1/keys/register", fields, id.seed)),
    });
    expect(res.status).toBe(200);
  }

  async function remove(address: string) {
    const path = `/v1/keys/${address}`;
    const res = await keys.request(path, {
      method: "DELETE",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(
        signedBody("DELETE", path, { signedAt: Date.now() }, identity(address).seed),
      ),
    });
    expect(res.status).toBe(200);
  }

  async function bundle(address: string) {
    const res = await keys.request(`/v1/keys/bundle/${address}`);
    const body = (await expectContract(res, "GET", "/v1/keys/bundle/{address}")) as Json;
    return { status: res.status, body };
  }

  return { svc, log, hooks, verifier, register, remove, bundle };
}

describe("createKtHooks", () => {
  it("logs created and deleted identities and proves each bundle answer", async () => {
    const { log, hooks } = await setup();
    const alice = identity("alice");
    await hooks.identityChanged({ address: "alice", kind: "created", ...keysOf(alice) });
    expect((await log.latestSth()).treeSize).toBe(1);
    const proof = await hooks.bundleProof("alice", keysOf(alice));
    expect(proof?.json).toMatchObject({
      sth: { treeSize: 1 },
      body: { type: "inclusion", leafIndex: 0 },
    });
    expect(JSON.parse(new TextDecoder().decode(proof?.bytes))).toEqual(proof?.json);
    expect((await hooks.bundleProof("nobody", undefined))?.json).toMatchObject({
      body: { type: "absence" },
    });
    await hooks.identityChanged({ address: "alice", kind: "deleted", ...keysOf(alice) });
    expect((await hooks.bundleProof("alice", undefined))?.json).toMatchObject({
      sth: { treeSize: 2 },
      body: { type: "tombstone", leafIndex: 1 },
    });
  });

  it("proves nothing that contradicts the answer: other keys, or a change not logged yet", async () => {
    const { hooks } = await setup();
    const bob = identity("bob");
    expect(await hooks.bundleProof("bob", keysOf(bob))).toBeUndefined();
    await hooks.identityChanged({ address: "bob", kind: "created", ...keysOf(bob) });
    expect(await hooks.bundleProof("bob", keysOf(identity("mallory")))).toBeUndefined();
    expect(await hooks.bundleProof("bob", undefined)).toBeUndefined();
    expect((await hooks.bundleProof("bob", keysOf(bob)))?.json).toMatchObject({
      body: { type: "inclusion" },
    });
  });

  it("reuses a kept proof while its head is recent, under a re-signed head of its size, in one wire form", async () => {
    const { log, hooks, register } = await setup();
    await register("alice");
    const keys = keysOf(identity("alice"));
    const first = (await hooks.bundleProof("alice", keys))?.json as Json;
    const again = await hooks.bundleProof("alice", keys);
    expect(again?.json.body).toBe(first.body);
    expect(again?.json.sth).toEqual(first.sth);
    expect(await hooks.bundleProof("alice", keys)).toBe(again);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const resigned = await log.refresh(0);
    const after = (await hooks.bundleProof("alice", keys))?.json as {
      sth: { timestampMs: number };
    };
    expect(after.sth.timestampMs).toBe(resigned?.timestampMs);
    expect(after.sth.timestampMs).toBeGreaterThan((first as typeof after).sth.timestampMs);
    // Another address's change does not make alice's proof wrong: within the lag it still holds.
    await register("bob");
    expect((await hooks.bundleProof("alice", keys))?.json).toMatchObject({ sth: { treeSize: 1 } });
  });

  it("proves under the latest head once a kept proof's head is older than the lag", async () => {
    const { hooks, register } = await setup({ proofLagMs: 0 });
    await register("alice");
    const keys = keysOf(identity("alice"));
    expect((await hooks.bundleProof("alice", keys))?.json).toMatchObject({ sth: { treeSize: 1 } });
    await register("bob");
    expect((await hooks.bundleProof("alice", keys))?.json).toMatchObject({ sth: { treeSize: 2 } });
  });
});

describe("createKtHooks and last-resort KEM keys", () => {
  /** A stand-in ML-KEM-1024 public key (1568 bytes): the log commits only to its SHA-256. */
  const kemKey = (n: number) => new Uint8Array(1568).fill(n);
  const kemKeyHash = (n: number) => new Uint8Array(createHash("sha256").update(kemKey(n)).digest());

  /** A 200 bundle body as the keys routes answer it, with the hooks' proof. */
  function bundleBody(
    id: ReturnType<typeof identity>,
    ktProof: Json | undefined,
    kemPreKey?: { key: number; lastResort: boolean },
  ): Json {
    return {
      identitySigningKey: encodeBase64(id.identitySigningKey),
      identityDHKey: encodeBase64(id.identityDHKey),
      signedPreKey: id.signedPreKey,
      ...(kemPreKey === undefined
        ? {}
        : {
            kemPreKey: {
              keyId: 1,
              publicKey: encodeBase64(kemKey(kemPreKey.key)),
              signature: encodeBase64(ed25519Sign(kemKey(kemPreKey.key), id.seed)),
              lastResort: kemPreKey.lastResort,
            },
          }),
      ktProof,
    };
  }

  it("logs created and updated identities with their KEM key hash, each a new identity leaf", async () => {
    const { log, hooks, verifier } = await setup({ proofLagMs: 0 });
    const dave = identity("dave");
    const first = { ...keysOf(dave), kemKeyHash: kemKeyHash(1) };
    await hooks.identityChanged({ address: "dave", kind: "created", ...first });
    const proof = await hooks.bundleProof("dave", first);
    expect(proof?.json).toMatchObject({
      sth: { treeSize: 1 },
      body: { type: "inclusion", leafIndex: 0, kemKeyHash: encodeBase64(kemKeyHash(1)) },
    });
    const verified = await verifier.verifyBundle(
      "dave",
      bundleBody(dave, proof?.json, { key: 1, lastResort: true }),
    );
    expect(verified).toMatchObject({ leafIndex: 0, kemCommitted: true });

    const replaced = { ...keysOf(dave), kemKeyHash: kemKeyHash(2) };
    await hooks.identityChanged({ address: "dave", kind: "updated", ...replaced });
    expect((await log.latestSth()).treeSize).toBe(2);
    // No proof for what the answer no longer is: the old key, or no key.
    expect(await hooks.bundleProof("dave", first)).toBeUndefined();
    expect(await hooks.bundleProof("dave", keysOf(dave))).toBeUndefined();
    const now = (await hooks.bundleProof("dave", replaced))?.json;
    expect(now).toMatchObject({ body: { leafIndex: 1, kemKeyHash: encodeBase64(kemKeyHash(2)) } });
    for (const kemPreKey of [
      { key: 2, lastResort: true },
      { key: 9, lastResort: false },
    ]) {
      await expect(
        verifier.verifyBundle("dave", bundleBody(dave, now, kemPreKey)),
      ).resolves.toMatchObject({ leafIndex: 1, kemCommitted: true });
    }
    await hooks.identityChanged({ address: "dave", kind: "deleted", ...replaced });
    expect((await hooks.bundleProof("dave", undefined))?.json).toMatchObject({
      body: { type: "tombstone", leafIndex: 2 },
    });
  });

  it("gives the verifier what refuses the old key, a stripped kemPreKey and a key never logged", async () => {
    const { hooks, verifier } = await setup();
    const dave = identity("dave");
    const erin = identity("erin");
    const daveKeys = { ...keysOf(dave), kemKeyHash: kemKeyHash(2) };
    await hooks.identityChanged({ address: "dave", kind: "created", ...daveKeys });
    await hooks.identityChanged({ address: "erin", kind: "created", ...keysOf(erin) });
    const daveProof = (await hooks.bundleProof("dave", daveKeys))?.json;
    const erinProof = (await hooks.bundleProof("erin", keysOf(erin)))?.json;
    expect(erinProof?.body).not.toHaveProperty("kemKeyHash");
    const refused = async (address: string, body: Json) =>
      verifier.verifyBundle(address, body).then(
        () => "accepted",
        (error: KtVerifyError) => error.code,
      );
    expect(await refused("dave", bundleBody(dave, daveProof, { key: 1, lastResort: true }))).toBe(
      "KT_KEM_MISMATCH",
    );
    expect(await refused("dave", bundleBody(dave, daveProof))).toBe("KT_KEM_MISSING");
    expect(await refused("erin", bundleBody(erin, erinProof, { key: 2, lastResort: true }))).toBe(
      "KT_KEM_MISMATCH",
    );
    expect(await refused("erin", bundleBody(erin, erinProof))).toBe("accepted");
  });
});

describe("key transparency end to end (keys routes wired with the hooks, @svc/kt-verify)", () => {
  it("a bundle fetched right after register carries a proof of that register", async () => {
    const { register, bundle, verifier } = await setup();
    await register("alice@example.org:1");
    const { status, body } = await bundle("alice@example.org:1");
    expect(status).toBe(200);
    const verified = await verifier.verifyBundle("alice@example.org:1", body);
    expect(verified).toMatchObject({
      format: 3,
      type: "inclusion",
      leafIndex: 0,
      sth: { treeSize: 1 },
    });
    expect(verified.leaf).toMatchObject({ kind: "identity" });
  });

  it("deleted and never-registered addresses answer 404 with tombstone and absence proofs", async () => {
    const { register, remove, bundle, verifier } = await setup();
    await register("carol");
    await register("dave");
    await remove("carol");
    const deleted = await bundle("carol");
    expect(deleted.status).toBe(404);
    expect((await verifier.verifyNotFound("carol", deleted.body)).type).toBe("tombstone");
    const never = await bundle("erin");
    expect(never.status).toBe(404);
    expect((await verifier.verifyNotFound("erin", never.body)).type).toBe("absence");
    const dave = await bundle("dave");
    expect((await verifier.verifyBundle("dave", dave.body)).sth.treeSize).toBe(3);
    expect((await verifier.trustedSth())?.treeSize).toBe(3);
  });

  it("an instance holding kept proofs proves a change made through another instance at once", async () => {
    const { svc, register, remove, verifier } = await setup();
    // svc.app runs its own log and hooks on the same database: the second instance.
    const fetchThere = async (address: string) => {
      const res = await svc.app.request(`/v1/keys/bundle/${address}`);
      return { status: res.status, body: (await res.json()) as Json };
    };
    const type = (body: Json) => (body.ktProof as { body: { type: string } }).body.type;
    expect(type((await fetchThere("erin")).body)).toBe("absence");
    await register("erin");
    const registered = await fetchThere("erin");
    expect(registered.status).toBe(200);
    await expect(verifier.verifyBundle("erin", registered.body)).resolves.toMatchObject({
      leafIndex: 0,
    });
    await remove("erin");
    const deleted = await fetchThere("erin");
    expect([deleted.status, type(deleted.body)]).toEqual([404, "tombstone"]);
    await register("erin");
    const again = await fetchThere("erin");
    await expect(verifier.verifyBundle("erin", again.body)).resolves.toMatchObject({
      leafIndex: 2,
    });
  });

  it("the verifier refuses tampered keys, a tampered proof, and a proof for another address", async () => {
    const { register, bundle, verifier } = await setup();
    await register("frank");
    await register("grace");
    const { body } = await bundle("frank");
    const other = identity("mallory");
    const swapped = { ...body, identityDHKey: encodeBase64(other.identityDHKey) };
    await expect(verifier.verifyBundle("frank", swapped)).rejects.toMatchObject({
      code: "KT_KEY_MISMATCH",
    });
    const proof = body.ktProof as { body: { auditPath: string[] } };
    const path = [...proof.body.auditPath];
    path[0] = encodeBase64(new Uint8Array(32).fill(1));
    const tampered = { ...body, ktProof: { ...proof, body: { ...proof.body, auditPath: path } } };
    await expect(verifier.verifyBundle("frank", tampered)).rejects.toMatchObject({
      code: "KT_BAD_PROOF",
    });
    await expect(verifier.verifyBundle("grace", body)).rejects.toBeInstanceOf(KtVerifyError);
  });

  it("keeps verifying across many registrations through consistency proofs", async () => {
    const { register, bundle, verifier } = await setup({ proofLagMs: 0 });
    for (let i = 0; i < 6; i++) {
      await register(`user${i}`);
      const { body } = await bundle(`user${Math.floor(i / 2)}`);
      expect((await verifier.verifyBundle(`user${Math.floor(i / 2)}`, body)).sth.treeSize).toBe(
        i + 1,
      );
    }
  });
});

function keysOf(id: ReturnType<typeof identity>) {
  return { identitySigningKey: id.identitySigningKey, identityDHKey: id.identityDHKey };
}
