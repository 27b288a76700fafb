import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeBase64, encodeBase64 } from "@svc/canonical";
import { decodeBundle, msgIdOf } from "@svc/protocol";
import { initiateSession } from "@svc/ratchet";
import { describe, expect, it } from "vitest";
import { ClientError } from "./errors.js";
import { fileStore } from "./node/index.js";
import { identityOf, parseState } from "./state.js";
import { type KeyStore, memoryStore } from "./store.js";
import { bytes, member, str, testClient } from "./test-support/clients.js";
import { startTestServer } from "./test-support/server.js";
import { delay, hookedFetch, rewriteJson } from "./test-support/wire.js";

const isDeposit = (method: string, url: URL) =>
  method === "POST" &&
  /^\/v1\/inbox\/[^/]+$/.test(url.pathname) &&
  url.pathname !== "/v1/inbox/register";

describe("SvcClient messaging", () => {
  it("exchanges 100 messages each way, deposits racing and delayed, each decrypted and delivered exactly once", async () => {
    const server = await startTestServer();
    // Deposits wait 0-30 ms at random, so they reach the inbox in another order than encrypted.
    const jittery = hookedFetch(async ({ method, url }, forward) => {
      if (isDeposit(method, url)) await delay(Math.random() * 30);
      return forward();
    });
    const alice = await member(server.url, "alice:1", { fetch: jittery });
    const bob = await member(server.url, "bob:1", { fetch: jittery });
    const received = { alice: [] as string[], bob: [] as string[] };
    const aliceSub = alice.subscribe((m) => {
      received.alice.push(`${m.from} ${str(m.plaintext)}`);
    });
    const bobSub = bob.subscribe((m) => {
      received.bob.push(`${m.from} ${str(m.plaintext)}`);
    });

    const texts = Array.from({ length: 100 }, (_, i) => `message ${i}`);
    // Both start at once: two first messages cross, then every send races the others.
    await Promise.all([
      ...texts.map((t) => alice.send("bob:1", bytes(t))),
      ...texts.map((t) => bob.send("alice:1", bytes(t))),
    ]);
    await until(() => received.alice.length >= 100 && received.bob.length >= 100, 60_000);
    await delay(300);
    aliceSub.close();
    bobSub.close();
    await Promise.all([aliceSub.closed, bobSub.closed]);

    expect(received.bob.sort()).toEqual(texts.map((t) => `alice:1 ${t}`).sort());
    expect(received.alice.sort()).toEqual(texts.map((t) => `bob:1 ${t}`).sort());
    expect(alice.errors).toEqual([]);
    expect(bob.errors).toEqual([]);
    expect(await alice.receive()).toEqual([]);
    expect(await bob.receive()).toEqual([]);
  });

  it("continues its sessions when re-opened from a fileStore", async () => {
    const server = await startTestServer();
    const dir = await mkdtemp(join(tmpdir(), "svc-client-reopen-"));
    const bundles: string[] = [];
    const counting = hookedFetch(async ({ url }, forward) => {
      if (url.pathname.startsWith("/v1/keys/bundle/")) bundles.push(url.pathname);
      return forward();
    });
    const first = await testClient(server.url, { store: fileStore(dir) });
    const alice = await first.init("alice:1");
    const bob = await member(server.url, "bob:1", { fetch: counting });
    await first.send("bob:1", bytes("before"));
    expect((await bob.receive()).map((m) => str(m.plaintext))).toEqual(["before"]);
    await bob.send("alice:1", bytes("reply"));
    await first.close();

    const again = await testClient(server.url, { store: fileStore(dir), fetch: counting });
    expect(await again.whoami()).toEqual(alice);
    expect((await again.receive()).map((m) => str(m.plaintext))).toEqual(["reply"]);
    await again.send("bob:1", bytes("after"));
    await bob.send("alice:1", bytes("and back"));
    expect((await bob.receive()).map((m) => str(m.plaintext))).toEqual(["after"]);
    expect((await again.receive()).map((m) => str(m.plaintext))).toEqual(["and back"]);
    // bob fetched alice's bundle once, to check her first message; nobody needed another.
    expect(bundles).toEqual(["/v1/keys/bundle/alice:1"]);
    expect([...again.errors, ...bob.errors]).toEqual([]);
  });

  it("refuses tampered, replayed, truncated and forged envelopes, acking them so the inbox is not blocked", async () => {
    const server = await startTestServer();
    const sent: string[] = [];
    const capturing = hookedFetch(async ({ method, url, body }, forward) => {
      if (isDeposit(method, url) && body) sent.push(JSON.parse(body).ciphertext);
      return forward();
    });
    const alice = await member(server.url, "alice:1", { fetch: capturing });
    const bob = await member(server.url, "bob:1");
    const mallory = await member(server.url, "mallory:1");
    await alice.send("bob:1", bytes("one"));
    await bob.receive();
    await bob.send("alice:1", bytes("two"));
    await alice.receive();
    await alice.send("bob:1", bytes("three"));
    const [firstMessage, normal] = sent.map((b) => decodeBase64(b));
    if (!firstMessage || !normal) throw new Error("nothing captured");

    const tampered = normal.slice();
    tampered[tampered.length - 20] = (tampered[tampered.length - 20] as number) ^ 1;
    const truncated = normal.slice(0, normal.length - 10);
    const malloryKey = await keyOf(mallory);
    const raw = (envelope: Uint8Array, from = "alice:1") =>
      mallory.api.inboxDeposit(
        "bob:1",
        {
          msgId: msgIdOf(envelope),
          ciphertext: encodeBase64(envelope),
          expiresAt: Date.now() + 3_600_000,
          senderPublicKey: encodeBase64(malloryKey.identitySigningKey),
          from,
        },
        malloryKey.signingPrivateKey,
      );

    await raw(tampered);
    await raw(truncated);
    await raw(firstMessage); // acked already by bob: a replay
    // mallory's own first message to bob, claiming to come from alice.
    const bundle = decodeBundle(await mallory.api.keysBundle("bob:1"));
    const forged = await initiateSession(malloryKey, bundle, bytes("I am alice"));
    await raw(forged.envelope);

    const got = await bob.receive();
    expect(got.map((m) => str(m.plaintext))).toEqual(["three"]);
    const codes = bob.errors.map((e) => (e as ClientError).code);
    expect(codes.sort()).toEqual(["DECRYPT_FAILED", "DECRYPT_FAILED", "SENDER_MISMATCH"]);
    expect(bob.errors.every((e) => e instanceof ClientError && e.msgId !== undefined)).toBe(true);
    // Everything was acked: the inbox is empty, and the real session goes on.
    const key = await keyOf(bob);
    const left = await bob.api.bridgePoll(
      { address: "bob:1", timeoutMs: 0 },
      key.signingPrivateKey,
    );
    expect(left.envelopes).toEqual([]);
    await alice.send("bob:1", bytes("four"));
    expect((await bob.receive()).map((m) => str(m.plaintext))).toEqual(["four"]);
  });

  it("never uses a one-time prekey twice: one per bundle on the server, its private key deleted on use", async () => {
    const server = await startTestServer();
    const bundles: unknown[] = [];
    const capturing = hookedFetch(async ({ url }, forward) => {
      const response = await forward();
      if (url.pathname === "/v1/keys/bundle/bob:1") bundles.push(await response.clone().json());
      return response;
    });
    const bob = await member(server.url, "bob:1");
    const senders = await Promise.all(
      ["alice:1", "carol:1", "dave:1"].map((a) => member(server.url, a, { fetch: capturing })),
    );
    for (const sender of senders) await sender.send("bob:1", bytes("hi"));
    const used = bundles.map(
      (b) => (b as { oneTimePreKey: { keyId: number } }).oneTimePreKey.keyId,
    );
    expect(new Set(used).size).toBe(3);
    expect((await bob.keysStatus()).oneTimePreKeysOnServer).toBe(97);
    expect(await bob.receive()).toHaveLength(3);
    const state = parseState(await bob.store.load());
    for (const keyId of used) expect(state.oneTimePreKeys[keyId]).toBeUndefined();
    expect(Object.keys(state.oneTimePreKeys)).toHaveLength(97);

    // eve replays alice's bundle, one-time prekey included: bob no longer has its private key.
    const eve = await member(server.url, "eve:1");
    const eveKeys = await keyOf(eve);
    const stale = await initiateSession(eveKeys, decodeBundle(bundles[0]), bytes("stale"));
    await eve.api.inboxDeposit(
      "bob:1",
      {
        msgId: msgIdOf(stale.envelope),
        ciphertext: encodeBase64(stale.envelope),
        expiresAt: Date.now() + 3_600_000,
        senderPublicKey: encodeBase64(eveKeys.identitySigningKey),
        from: "eve:1",
      },
      eveKeys.signingPrivateKey,
    );
    expect(await bob.receive()).toEqual([]);
    expect(bob.errors).toHaveLength(1);
    expect((bob.errors[0] as ClientError).message).toMatch(/RATCHET_UNKNOWN_PREKEY/);
  });

  it("detects a server that swaps a bundle's keys (KT) and one that drops the proof", async () => {
    const server = await startTestServer();
    const bob = await member(server.url, "bob:1");
    const other = await member(server.url, "other:1");
    const otherKey = (await other.whoami()).identityDHKey;
    let lie: "swap" | "strip" = "swap";
    const lying = hookedFetch(async ({ url }, forward) => {
      const response = await forward();
      if (url.pathname !== "/v1/keys/bundle/bob:1") return response;
      return rewriteJson(response, (json) => {
        if (lie === "swap") return { ...json, identityDHKey: otherKey };
        const { ktProof: _, ...rest } = json;
        return rest;
      });
    });
    const alice = await member(server.url, "alice:1", { fetch: lying });
    await expect(alice.send("bob:1", bytes("hi"))).rejects.toMatchObject({
      code: "KT_VERIFICATION_FAILED",
    });
    lie = "strip";
    await expect(alice.send("bob:1", bytes("hi"))).rejects.toMatchObject({
      code: "KT_VERIFICATION_FAILED",
    });
    await expect(alice.verifyKt("bob:1")).rejects.toMatchObject({ code: "KT_VERIFICATION_FAILED" });

    const honest = await member(server.url, "carol:1");
    const verified = await honest.verifyKt("bob:1");
    expect(verified).toMatchObject({
      identitySigningKey: (await bob.whoami()).identitySigningKey,
      identityDHKey: (await bob.whoami()).identityDHKey,
    });
    expect(verified.treeSize).toBeGreaterThan(verified.leafIndex);
  });

  it('refuses a server without KT by default ("require"), and works with it under "auto" or "off"', async () => {
    const server = await startTestServer({ SVC_KT: "off" });
    for (const options of [{}, { kt: "require" as const }]) {
      const strict = await testClient(server.url, options);
      await expect(strict.init("alice:1")).rejects.toMatchObject({
        code: "KT_UNAVAILABLE",
        message: `the server at ${server.url} has no key-transparency log (GET /v1/kt/log_id answered 404): its keys cannot be verified`,
      });
      await expect(strict.whoami()).rejects.toMatchObject({ code: "NO_IDENTITY" });
    }
    const alice = await member(server.url, "alice:1", { kt: "auto" });
    const bob = await member(server.url, "bob:1", { kt: "off" });
    await alice.send("bob:1", bytes("no kt here"));
    expect((await bob.receive()).map((m) => str(m.plaintext))).toEqual(["no kt here"]);
    await expect(alice.verifyKt("bob:1")).rejects.toMatchObject({ code: "KT_UNAVAILABLE" });
  });

  it("acks, without handing over again, a message handed over before a crash cut off its ack", async () => {
    const server = await startTestServer();
    const store = memoryStore();
    let acks = "fail";
    const flaky = hookedFetch(async ({ method }, forward) => {
      if (method === "DELETE" && acks === "fail") throw new TypeError("connection reset");
      return forward();
    });
    const bob = await testClient(server.url, { store, fetch: flaky });
    await bob.init("bob:1");
    const alice = await member(server.url, "alice:1");
    await alice.send("bob:1", bytes("once"));
    expect((await bob.receive()).map((m) => str(m.plaintext))).toEqual(["once"]);
    // A server away is not reported for an ack: it is sent again with the next drain or connect.
    expect(bob.errors).toEqual([]);
    await bob.close();

    acks = "work";
    const restarted = await testClient(server.url, { store, fetch: flaky });
    expect(await restarted.receive()).toEqual([]);
    const key = await keyOf(restarted);
    const left = await restarted.api.bridgePoll(
      { address: "bob:1", timeoutMs: 0 },
      key.signingPrivateKey,
    );
    expect(left.envelopes).toEqual([]);
    expect(restarted.errors).toEqual([]);
  });

  it("keys sessions and peers by any address, Object.prototype's names included", async () => {
    const server = await startTestServer();
    const alice = await member(server.url, "alice:1");
    const bob = await member(server.url, "bob:1");
    const envelope = await alice.seal("bob:1", bytes("hi"));
    for (const from of ["toString", "constructor", "hasOwnProperty", "valueOf"]) {
      // Looked up like any unknown peer: the directory has no such address.
      await expect(bob.open(from, envelope)).rejects.toThrow(`${from} is not registered`);
    }
    expect(str(await bob.open("alice:1", envelope))).toBe("hi");
    const state = parseState(await bob.store.load());
    expect(Object.keys(state.sessions)).toEqual(["alice:1"]);
  });

  it("refuses init on a store that has an identity, and calls that need one without", async () => {
    const server = await startTestServer();
    const alice = await member(server.url, "alice:1");
    await expect(alice.init("alice:1")).rejects.toMatchObject({ code: "IDENTITY_EXISTS" });
    const empty = await testClient(server.url);
    await expect(empty.whoami()).rejects.toMatchObject({ code: "NO_IDENTITY" });
    await expect(empty.send("alice:1", bytes("x"))).rejects.toMatchObject({ code: "NO_IDENTITY" });
    await expect(empty.receive()).rejects.toMatchObject({ code: "NO_IDENTITY" });
    await expect(alice.send("not an address", bytes("x"))).rejects.toThrow(RangeError);
    await alice.close();
    await expect(alice.whoami()).rejects.toMatchObject({ code: "CLOSED" });
  });
});

/** The identity behind a test client, read back from its store. */
async function keyOf(client: { store: KeyStore }) {
  return identityOf(parseState(await client.store.load()));
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await delay(20);
  }
}
