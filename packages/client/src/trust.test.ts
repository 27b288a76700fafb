import { describe, expect, it } from "vitest";
import { ClientError } from "./errors.js";
import { identityFingerprint } from "./safety-number.js";
import { identityOf, parseState } from "./state.js";
import type { KeyStore } from "./store.js";
import { bytes, member, str, type TestClient, testClient } from "./test-support/clients.js";
import { startTestServer } from "./test-support/server.js";
import { hookedFetch } from "./test-support/wire.js";

/** Requests a client made, as "METHOD /path", to count bundle fetches and deposits. */
function recorded() {
  const requests: string[] = [];
  const fetch = hookedFetch(async ({ method, url }, forward) => {
    requests.push(`${method} ${url.pathname}`);
    return forward();
  });
  return {
    fetch,
    requests,
    count: (prefix: string) => requests.filter((r) => r.startsWith(prefix)).length,
  };
}

async function keyOf(client: { store: KeyStore }) {
  return identityOf(parseState(await client.store.load()));
}

async function fingerprintOf(client: TestClient): Promise<string> {
  return identityFingerprint(await keyOf(client));
}

/** `client`'s identity deleted from the directory and its inbox; the address is free again. */
async function retire(client: TestClient, address: string): Promise<void> {
  const key = (await keyOf(client)).signingPrivateKey;
  await client.api.keysDelete(address, key);
  await client.api.inboxUnregister(address, key);
}

async function errorOf(work: Promise<unknown>): Promise<ClientError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ClientError)) throw new Error(`expected a ClientError, got ${error}`);
  return error;
}

describe("identity changes, trust and safety numbers", () => {
  it("a first message under a changed identity is refused, then send too, until trust(); then a fresh session", async () => {
    const server = await startTestServer();
    const wire = recorded();
    const alice = await member(server.url, "alice:1", { fetch: wire.fetch });
    const bob = await member(server.url, "bob:1");
    await alice.send("bob:1", bytes("hello"));
    expect((await bob.receive()).map((m) => str(m.plaintext))).toEqual(["hello"]);
    const oldFingerprint = await fingerprintOf(bob);

    await retire(bob, "bob:1");
    const newBob = await member(server.url, "bob:1");
    const newFingerprint = await fingerprintOf(newBob);
    await newBob.send("alice:1", bytes("I have new keys"));
    expect(await alice.receive()).toEqual([]);
    expect(alice.errors).toHaveLength(1);
    const reported = alice.errors[0] as ClientError;
    expect(reported.code).toBe("IDENTITY_CHANGED");
    expect(reported.identityChange).toEqual({
      address: "bob:1",
      trustedFingerprint: oldFingerprint,
      newFingerprint,
    });

    const depositsBefore = wire.count("POST /v1/inbox/bob:1");
    const refused = await errorOf(alice.send("bob:1", bytes("to whom?")));
    expect(refused.code).toBe("IDENTITY_CHANGED");
    expect(refused.message).toBe(
      `the identity keys of bob:1 changed: trusted here ${oldFingerprint}, now the directory has ${newFingerprint}`,
    );
    expect(refused.identityChange).toEqual(reported.identityChange);
    expect(wire.count("POST /v1/inbox/bob:1")).toBe(depositsBefore);
    const before = await alice.safetyNumber("bob:1");
    expect(before.changed?.fingerprint).toBe(newFingerprint);
    expect(before.changed?.safetyNumber).toBe((await newBob.safetyNumber("alice:1")).safetyNumber);

    const bundles = wire.count("GET /v1/keys/bundle/bob:1");
    expect(await alice.trust("bob:1")).toEqual({
      address: "bob:1",
      changed: true,
      previousFingerprint: oldFingerprint,
      fingerprint: newFingerprint,
    });
    await alice.send("bob:1", bytes("welcome back"));
    // The bundle fetched when the first message was refused served trust() and the new session.
    expect(wire.count("GET /v1/keys/bundle/bob:1")).toBe(bundles);
    expect((await newBob.receive()).map((m) => str(m.plaintext))).toEqual(["welcome back"]);
    expect(await alice.safetyNumber("bob:1")).toEqual({
      address: "bob:1",
      safetyNumber: (await newBob.safetyNumber("alice:1")).safetyNumber,
      fingerprint: newFingerprint,
      ownFingerprint: await fingerprintOf(alice),
    });
  });

  it("send refuses a bundle with other keys than those trusted, and trust() accepts that bundle without another fetch", async () => {
    const server = await startTestServer();
    const wire = recorded();
    const carol = await member(server.url, "carol:1", { fetch: wire.fetch });
    const bob = await member(server.url, "bob:1");
    await carol.peerIdentity("bob:1");
    await retire(bob, "bob:1");
    const newBob = await member(server.url, "bob:1");

    expect((await errorOf(carol.send("bob:1", bytes("hi")))).code).toBe("IDENTITY_CHANGED");
    expect((await errorOf(carol.send("bob:1", bytes("hi")))).code).toBe("IDENTITY_CHANGED");
    expect(wire.count("GET /v1/keys/bundle/bob:1")).toBe(2);
    expect(wire.count("POST /v1/inbox/bob:1")).toBe(0);
    expect((await carol.trust("bob:1")).changed).toBe(true);
    await carol.send("bob:1", bytes("hi"));
    expect(wire.count("GET /v1/keys/bundle/bob:1")).toBe(2);
    expect((await newBob.receive()).map((m) => str(m.plaintext))).toEqual(["hi"]);
  });

  it("a forged first message naming other keys is SENDER_MISMATCH when the directory has the trusted ones", async () => {
    const server = await startTestServer();
    const alice = await member(server.url, "alice:1");
    const bob = await member(server.url, "bob:1");
    await alice.send("bob:1", bytes("hello"));
    await bob.receive();
    // mallory registered elsewhere sends bob a first message in alice's name.
    const mallory = await member(server.url, "mallory:1");
    const sealed = await mallory.seal("bob:1", bytes("I am alice"));
    await expect(bob.open("alice:1", sealed)).rejects.toMatchObject({ code: "SENDER_MISMATCH" });
    await bob.send("alice:1", bytes("still you?"));
    expect((await alice.receive()).map((m) => str(m.plaintext))).toEqual(["still you?"]);
  });

  it("trust() with nothing changed says so; safetyNumber() fetches nothing and needs known keys", async () => {
    const server = await startTestServer();
    const wire = recorded();
    const alice = await member(server.url, "alice:1", { fetch: wire.fetch });
    const bob = await member(server.url, "bob:1");
    expect((await errorOf(alice.safetyNumber("bob:1"))).code).toBe("PEER_UNKNOWN");
    // trust() learns a new peer's keys (one bundle, kept for the first message).
    const learnt = await alice.trust("bob:1");
    expect(learnt).toMatchObject({ changed: true, previousFingerprint: null });
    const requests = wire.requests.length;
    const number = await alice.safetyNumber("bob:1");
    expect(wire.requests.length).toBe(requests);
    expect(number.safetyNumber).toMatch(/^\d{60}$/);
    await alice.send("bob:1", bytes("first"));
    expect(wire.count("GET /v1/keys/bundle/bob:1")).toBe(1);
    expect((await bob.receive()).map((m) => str(m.plaintext))).toEqual(["first"]);
    expect(number.safetyNumber).toBe((await bob.safetyNumber("alice:1")).safetyNumber);
    expect(await alice.trust("bob:1")).toEqual({
      address: "bob:1",
      changed: false,
      previousFingerprint: learnt.fingerprint,
      fingerprint: learnt.fingerprint,
    });
    const reopened = await testClient(server.url, { store: alice.store });
    expect(await reopened.safetyNumber("bob:1")).toEqual(number);
  });
});
