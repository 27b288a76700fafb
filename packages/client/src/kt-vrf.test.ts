import { ed25519KeyPairFromSeed, encodeBase64 } from "@svc/canonical";
import { KtVerifyError, logIdOf } from "@svc/kt-verify";
import { describe, expect, it } from "vitest";
import { ClientError } from "./errors.js";
import type { StoredState } from "./state.js";
import { type KeyStore, memoryStore } from "./store.js";
import { member, testClient } from "./test-support/clients.js";
import { startTestServer } from "./test-support/server.js";
import { hookedFetch, rewriteJson } from "./test-support/wire.js";

/** The server's own log_id answer. */
async function servedLogId(url: string): Promise<{ publicKey: string; vrfPublicKey?: string }> {
  return (await (await fetch(`${url}/v1/kt/log_id`)).json()) as {
    publicKey: string;
    vrfPublicKey?: string;
  };
}

/**
 * A fetch that serves bob's bundle proofs as format 2 would look (no vrfProof or opening) and,
 * with `hideVrfKey`, a log_id without vrfPublicKey: a server trying to downgrade.
 */
function downgrading(options: { hideVrfKey?: boolean } = {}) {
  return hookedFetch(async ({ url }, forward) => {
    const response = await forward();
    if (url.pathname === "/v1/kt/log_id" && options.hideVrfKey) {
      return rewriteJson(response, ({ vrfPublicKey: _, ...json }) => json);
    }
    if (url.pathname !== "/v1/keys/bundle/bob:1") return response;
    return rewriteJson(response, (json) => {
      const ktProof = json.ktProof as { body: Record<string, unknown> };
      const { vrfProof: _v, opening: _o, ...body } = ktProof.body;
      return { ...json, ktProof: { ...ktProof, body } };
    });
  });
}

async function stateOf(store: KeyStore): Promise<StoredState> {
  const state = await store.load();
  if (state === undefined) throw new Error("no state");
  return state;
}

async function causeOf(work: Promise<unknown>): Promise<string | undefined> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ClientError);
  expect((error as ClientError).code).toBe("KT_VERIFICATION_FAILED");
  const cause = (error as ClientError).cause;
  return cause instanceof KtVerifyError ? cause.code : undefined;
}

describe("SvcClient and a log with a private index (format 3)", () => {
  it("pins the VRF key with the log key and verifies format-3 bundles", async () => {
    const server = await startTestServer();
    const logId = await servedLogId(server.url);
    expect(logId.vrfPublicKey).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    const bob = await member(server.url, "bob:1");
    const alice = await member(server.url, "alice:1");
    const verified = await alice.verifyKt("bob:1");
    expect(verified.identityDHKey).toBe((await bob.whoami()).identityDHKey);
    expect((await stateOf(alice.store)).kt).toMatchObject({
      logPublicKey: logId.publicKey,
      vrfPublicKey: logId.vrfPublicKey,
    });
  });

  it("refuses format-2 proofs once a VRF key is pinned, even if log_id stops naming one", async () => {
    const server = await startTestServer();
    await member(server.url, "bob:1");
    const alice = await member(server.url, "alice:1", { fetch: downgrading() });
    expect(await causeOf(alice.verifyKt("bob:1"))).toBe("KT_MALFORMED");
    const store = memoryStore();
    const carol = await member(server.url, "carol:1", { store });
    await carol.verifyKt("bob:1");
    await carol.close();
    const again = await testClient(server.url, {
      store,
      fetch: downgrading({ hideVrfKey: true }),
    });
    expect(await causeOf(again.verifyKt("bob:1"))).toBe("KT_MALFORMED");
    await expect(again.send("bob:1", new Uint8Array(1))).rejects.toMatchObject({
      code: "KT_VERIFICATION_FAILED",
    });
  });

  it("loads a state pinned without a VRF key, learns the key from the next format-3 proof and pins it", async () => {
    const server = await startTestServer();
    const logId = await servedLogId(server.url);
    await member(server.url, "bob:1");
    const store = memoryStore();
    const alice = await member(server.url, "alice:1", { store });
    await alice.verifyKt("bob:1");
    await alice.close();
    // A state from before the private index: the same pin without vrfPublicKey.
    const old = await stateOf(store);
    const { vrfPublicKey: _, ...pin } = old.kt ?? { logPublicKey: "", trustedSth: null };
    await store.save({ ...old, kt: pin });
    expect((await stateOf(store)).kt).not.toHaveProperty("vrfPublicKey");
    let logIdReads = 0;
    const counting = hookedFetch(async ({ url }, forward) => {
      if (url.pathname === "/v1/kt/log_id") logIdReads++;
      return forward();
    });
    const reopened = await testClient(server.url, { store, fetch: counting });
    expect(logIdReads).toBe(0);
    await expect(reopened.verifyKt("bob:1")).resolves.toMatchObject({ treeSize: 2 });
    expect(logIdReads).toBe(1);
    await reopened.verifyKt("bob:1");
    expect(logIdReads).toBe(1);
    await reopened.close();
    expect((await stateOf(store)).kt?.vrfPublicKey).toBe(logId.vrfPublicKey);
    // From then on it is pinned: the downgrade is refused.
    const pinned = await testClient(server.url, { store, fetch: downgrading() });
    expect(await causeOf(pinned.verifyKt("bob:1"))).toBe("KT_MALFORMED");
  });

  it("refuses to learn a VRF key from a log_id that names another log key", async () => {
    const server = await startTestServer();
    await member(server.url, "bob:1");
    const store = memoryStore();
    const alice = await member(server.url, "alice:1", { store });
    await alice.close();
    const old = await stateOf(store);
    const { vrfPublicKey: _, ...pin } = old.kt ?? { logPublicKey: "", trustedSth: null };
    await store.save({ ...old, kt: pin });
    const otherKey = ed25519KeyPairFromSeed(new Uint8Array(32).fill(5)).publicKey;
    const otherLog = hookedFetch(async ({ url }, forward) => {
      const response = await forward();
      if (url.pathname !== "/v1/kt/log_id") return response;
      return rewriteJson(response, (json) => ({
        ...json,
        logId: encodeBase64(logIdOf(otherKey)),
        publicKey: encodeBase64(otherKey),
      }));
    });
    const reopened = await testClient(server.url, { store, fetch: otherLog });
    const error = await reopened.verifyKt("bob:1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({ code: "KT_VERIFICATION_FAILED" });
    expect((error as Error).message).toMatch(/another log key/);
    await reopened.close();
    expect((await stateOf(store)).kt).not.toHaveProperty("vrfPublicKey");
  });
});
