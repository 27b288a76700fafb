import { createHash } from "node:crypto";
import { decodeBase64 } from "@svc/canonical";
import { createTestStorage } from "@svc/db/testing";
import {
  httpLogClient,
  KtMonitor,
  type KtMonitorEvent,
  KtVerifier,
  KtVerifyError,
} from "@svc/kt-verify";
import {
  type Json,
  jsonRequest,
  kemPreKey,
  kemPreKeys,
  registerFields,
  signedBodyBy,
  type TestIdentity,
  testIdentity,
} from "@svc/test-client";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { warmTestDatabase } from "../../../test-support/warm-database.js";
import { createKtHooks, startKtLog } from "./index.js";

const alice = testIdentity("alice@example.org:1");
const bob = testIdentity("bob@example.org:1");

const sha256 = (base64: string) =>
  new Uint8Array(createHash("sha256").update(decodeBase64(base64)).digest());

/** A prekey server with key transparency on, and a verifier and a monitor of its log. */
async function setup() {
  const svc = await createTestApp({ SVC_RATE_LIMIT: "off" });
  const post = async (path: string, body: unknown) => {
    const res = await svc.app.request(path, jsonRequest("POST", body));
    expect(res.status).toBe(200);
  };
  const bundle = async (identity: TestIdentity) => {
    const path = `/v1/keys/bundle/${identity.address}`;
    const res = await svc.app.request(path);
    expect(res.status).toBe(200);
    return (await expectContract(res, "GET", "/v1/keys/bundle/{address}")) as Json;
  };
  const register = (identity: TestIdentity, kem: Json = {}) =>
    post(
      "/v1/keys/register",
      signedBodyBy(identity.signer, "POST", "/v1/keys/register", {
        ...registerFields(identity, Date.now()),
        ...kem,
      }),
    );
  const replenish = (identity: TestIdentity, members: Json) =>
    post(
      "/v1/keys/replenish",
      signedBodyBy(identity.signer, "POST", "/v1/keys/replenish", {
        address: identity.address,
        ...members,
        signedAt: Date.now(),
      }),
    );
  const fetchApp = (url: string) => Promise.resolve(svc.app.request(url));
  const client = httpLogClient("http://svc.test", fetchApp);
  const logId = (await (await svc.app.request("/v1/kt/log_id")).json()) as Json;
  const logPublicKey = decodeBase64(logId.publicKey as string, 32);
  const vrfPublicKey = decodeBase64(logId.vrfPublicKey as string, 32);
  const verifier = () => new KtVerifier({ logPublicKey, vrfPublicKey, client });
  const treeSize = async () =>
    ((await (await svc.app.request("/v1/kt/sth")).json()) as { treeSize: number }).treeSize;
  const watch = async (address: string) => {
    const events: KtMonitorEvent[] = [];
    const monitor = new KtMonitor({
      client,
      logPublicKey,
      vrfPublicKey,
      watch: [address],
      onEvent: (event) => events.push(event),
    });
    await monitor.step();
    return events.filter((event) => event.event === "change");
  };
  // Another instance's log on the same database, wired as the app wires its own.
  const otherInstance = async () => createKtHooks(await startKtLog(svc.services));
  return { register, replenish, bundle, verifier, treeSize, watch, otherInstance };
}

async function outcome(verifier: KtVerifier, address: string, body: Json) {
  return verifier.verifyBundle(address, body).then(
    (verified) => ({ leafIndex: verified.leafIndex, kemCommitted: verified.kemCommitted }),
    (error: unknown) => (error instanceof KtVerifyError ? error.code : error),
  );
}

describe("last-resort KEM keys in key transparency, through the keys routes", () => {
  beforeAll(() => warmTestDatabase(createTestStorage));

  it("logs a post-quantum register with its KEM key; its bundles verify, a stripped one does not", async () => {
    const { register, bundle, verifier, treeSize } = await setup();
    const lastResort = kemPreKey(alice, 1000, "last-resort");
    await register(alice, { kemLastResortPreKey: lastResort, kemPreKeys: kemPreKeys(alice, [1]) });
    expect(await treeSize()).toBe(1);
    const oneTime = await bundle(alice);
    expect(oneTime.kemPreKey).toMatchObject({ keyId: 1, lastResort: false });
    const proof = oneTime.ktProof as { body: Json };
    expect(decodeBase64(proof.body.kemKeyHash as string)).toEqual(sha256(lastResort.publicKey));
    expect(await outcome(verifier(), alice.address, oneTime)).toEqual({
      leafIndex: 0,
      kemCommitted: true,
    });
    const fallback = await bundle(alice);
    expect(fallback.kemPreKey).toMatchObject({ keyId: 1000, lastResort: true });
    expect(await outcome(verifier(), alice.address, fallback)).toEqual({
      leafIndex: 0,
      kemCommitted: true,
    });
    // A server that strips the KEM prekey to force classic session setup.
    const { kemPreKey: _stripped, ...classic } = fallback;
    expect(await outcome(verifier(), alice.address, classic)).toBe("KT_KEM_MISSING");
  });

  it("logs a replaced last-resort key as a new identity leaf, which the monitor reports", async () => {
    const { register, replenish, bundle, verifier, treeSize, watch } = await setup();
    const first = kemPreKey(alice, 1000, "last-resort");
    await register(alice, { kemLastResortPreKey: first });
    const before = await bundle(alice);
    const rotated = kemPreKey(alice, 1001, "rotated");
    await replenish(alice, { kemLastResortPreKey: rotated });
    expect(await treeSize()).toBe(2);
    const after = await bundle(alice);
    expect(after.kemPreKey).toMatchObject({ keyId: 1001, lastResort: true });
    expect(await outcome(verifier(), alice.address, after)).toEqual({
      leafIndex: 1,
      kemCommitted: true,
    });
    // The old key under the new proof, and the old bundle: each only shows what it was logged as.
    const swapped = { ...after, kemPreKey: before.kemPreKey };
    expect(await outcome(verifier(), alice.address, swapped)).toBe("KT_KEM_MISMATCH");
    expect(await outcome(verifier(), alice.address, before)).toEqual({
      leafIndex: 0,
      kemCommitted: true,
    });
    expect(
      (await watch(alice.address)).map((e) => e.event === "change" && e.previousLeafIndex),
    ).toEqual([undefined, 0]);
  });

  it("passes over a late append of a state no longer stored: the log keeps showing the last one", async () => {
    const { register, replenish, bundle, verifier, treeSize, otherInstance } = await setup();
    const first = kemPreKey(alice, 1000, "last-resort");
    await register(alice, { kemLastResortPreKey: first });
    await replenish(alice, { kemLastResortPreKey: kemPreKey(alice, 1001, "rotated") });
    expect(await treeSize()).toBe(2);
    // Another instance committed `first` before the rotation but appends only now; and a delete
    // whose tombstone comes after the address was registered again.
    const other = await otherInstance();
    const keys = {
      address: alice.address,
      identitySigningKey: decodeBase64(alice.identitySigningKey),
      identityDHKey: decodeBase64(alice.identityDHKey),
    };
    await other.identityChanged({ ...keys, kind: "updated", kemKeyHash: sha256(first.publicKey) });
    await other.identityChanged({ ...keys, kind: "deleted" });
    expect(await treeSize()).toBe(2);
    const after = await bundle(alice);
    expect(after.kemPreKey).toMatchObject({ keyId: 1001, lastResort: true });
    expect(await outcome(verifier(), alice.address, after)).toEqual({
      leafIndex: 1,
      kemCommitted: true,
    });
    // The same late append of the state stored now is logged (a repeat leaf, harmless).
    await other.identityChanged({
      ...keys,
      kind: "updated",
      kemKeyHash: sha256(kemPreKey(alice, 1001, "rotated").publicKey),
    });
    expect(await treeSize()).toBe(3);
  });

  it("logs a classic register as before, and a register that omits the KEM key logs nothing", async () => {
    const { register, bundle, verifier, treeSize } = await setup();
    await register(bob);
    const classic = await bundle(bob);
    expect(classic).not.toHaveProperty("kemPreKey");
    expect((classic.ktProof as { body: Json }).body).not.toHaveProperty("kemKeyHash");
    expect(await outcome(verifier(), bob.address, classic)).toEqual({
      leafIndex: 0,
      kemCommitted: false,
    });
    await register(alice, { kemLastResortPreKey: kemPreKey(alice, 1000, "last-resort") });
    await register(alice);
    expect(await treeSize()).toBe(2);
    expect(await outcome(verifier(), alice.address, await bundle(alice))).toEqual({
      leafIndex: 1,
      kemCommitted: true,
    });
  });
});
