import { decodeBase64 } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { ClientError } from "./errors.js";
import { parseState } from "./state.js";
import { memoryStore } from "./store.js";
import { classicMember } from "./test-support/classic.js";
import { bytes, member, str, testClient } from "./test-support/clients.js";
import { startTestServer } from "./test-support/server.js";
import { hookedFetch, rewriteJson } from "./test-support/wire.js";

/** The envelope kind (second byte) of each message deposited through this fetch. */
function depositKinds() {
  const kinds: number[] = [];
  const fetch = hookedFetch(async ({ method, url, body }, forward) => {
    if (method === "POST" && /^\/v1\/inbox\/[^/]+$/.test(url.pathname) && body !== undefined) {
      const { ciphertext } = JSON.parse(body) as { ciphertext?: string };
      if (ciphertext !== undefined) kinds.push(decodeBase64(ciphertext)[1] as number);
    }
    return forward();
  });
  return { kinds, fetch };
}

/** A fetch that serves every bundle without its kemPreKey, as a downgrading server would. */
const strippingKem = hookedFetch(async ({ url }, forward) => {
  const response = await forward();
  if (!response.ok || !url.pathname.startsWith("/v1/keys/bundle/")) return response;
  return rewriteJson(response, ({ kemPreKey: _, ...bundle }) => bundle);
});

/**
 * A server from before ML-KEM prekeys, as a client sees it: count and replenish answers without
 * their KEM members, and a 400 for any body that carries KEM keys (its schema is strict).
 */
function classicServer() {
  const kemUploads: string[] = [];
  const fetch = hookedFetch(async ({ method, url, body }, forward) => {
    if (method === "POST" && body?.includes('"kem')) {
      kemUploads.push(url.pathname);
      return Response.json(
        { name: "BadRequest", code: "SVC_BAD_REQUEST", message: "unknown member" },
        { status: 400 },
      );
    }
    const response = await forward();
    if (!response.ok || !/^\/v1\/keys\/(count|replenish)/.test(url.pathname)) return response;
    return rewriteJson(response, ({ kemCount: _, kemRemaining: __, ...answer }) => answer);
  });
  return { kemUploads, fetch };
}

const X3DH_FIRST = 0x02;
const PQXDH_FIRST = 0x03;
const MESSAGE = 0x01;

describe("post-quantum sessions", () => {
  it("two PQ peers set up PQXDH both ways: postQuantum on both sides, KEM prekeys counted", async () => {
    const server = await startTestServer();
    const deposits = depositKinds();
    const alice = await member(server.url, "alice:1", { fetch: deposits.fetch });
    const bob = await member(server.url, "bob:1");
    expect(await bob.keysStatus()).toMatchObject({ kemPreKeysOnServer: 100, kemPreKeysLocal: 100 });

    await alice.send("bob:1", bytes("hello bob"));
    expect((await bob.receive()).map((m) => str(m.plaintext))).toEqual(["hello bob"]);
    await bob.send("alice:1", bytes("hello alice"));
    expect((await alice.receive()).map((m) => str(m.plaintext))).toEqual(["hello alice"]);
    // Answered: alice's session is confirmed, so her next message is no first message.
    await alice.send("bob:1", bytes("again"));
    expect((await bob.receive()).map((m) => str(m.plaintext))).toEqual(["again"]);

    expect(deposits.kinds).toEqual([PQXDH_FIRST, MESSAGE]);
    expect(await alice.session("bob:1")).toEqual({ address: "bob:1", postQuantum: true });
    expect(await bob.session("alice:1")).toEqual({ address: "alice:1", postQuantum: true });
    // The one-time KEM prekey alice's message used is gone from the server and, once read, here.
    expect(await bob.keysStatus()).toMatchObject({ kemPreKeysOnServer: 99, kemPreKeysLocal: 99 });
    expect(alice.errors).toEqual([]);
    expect(bob.errors).toEqual([]);
  });

  it("registers and tops up classic keys only on a server that predates KEM prekeys", async () => {
    const server = await startTestServer();
    const old = classicServer();
    const erin = await member(server.url, "erin:1", { fetch: old.fetch });
    expect(await erin.keysStatus()).toMatchObject({ kemPreKeysOnServer: 0 });
    expect(await erin.replenishPrekeys()).toBeGreaterThanOrEqual(0);
    expect(old.kemUploads).toEqual([]);
    expect((await erin.api.keysBundle("erin:1")).kemPreKey).toBeUndefined();

    const alice = await member(server.url, "alice:1");
    await alice.send("erin:1", bytes("hi erin"));
    expect((await erin.receive()).map((m) => str(m.plaintext))).toEqual(["hi erin"]);
    expect(await alice.session("erin:1")).toEqual({ address: "erin:1", postQuantum: false });
    expect(erin.errors).toEqual([]);
  });

  it("a classic peer (no KEM prekeys) and a PQ peer talk both ways over X3DH", async () => {
    const server = await startTestServer();
    const pq = depositKinds();
    const alice = await member(server.url, "alice:1", { fetch: pq.fetch });
    const classic = depositKinds();
    const carol = await classicMember(server.url, "carol:1", { fetch: classic.fetch });
    expect(await carol.keysStatus()).toMatchObject({ kemPreKeysOnServer: 0 });
    expect((await alice.api.keysBundle("carol:1")).kemPreKey).toBeUndefined();

    await alice.send("carol:1", bytes("hi carol"));
    expect((await carol.receive()).map((m) => str(m.plaintext))).toEqual(["hi carol"]);
    await carol.send("alice:1", bytes("hi alice"));
    expect((await alice.receive()).map((m) => str(m.plaintext))).toEqual(["hi alice"]);
    expect(await alice.session("carol:1")).toEqual({ address: "carol:1", postQuantum: false });
    expect(await carol.session("alice:1")).toEqual({ address: "alice:1", postQuantum: false });

    // And the other way round: the classic peer starts, with an X3DH first message.
    const dave = await classicMember(server.url, "dave:1");
    await dave.send("alice:1", bytes("from dave"));
    expect((await alice.receive()).map((m) => `${m.from} ${str(m.plaintext)}`)).toEqual([
      "dave:1 from dave",
    ]);
    await alice.send("dave:1", bytes("back to dave"));
    expect((await dave.receive()).map((m) => str(m.plaintext))).toEqual(["back to dave"]);
    expect(await alice.session("dave:1")).toEqual({ address: "dave:1", postQuantum: false });
    expect(pq.kinds).toEqual([X3DH_FIRST, MESSAGE]);
    expect(classic.kinds).toEqual([MESSAGE]);
    expect([alice.errors, carol.errors, dave.errors]).toEqual([[], [], []]);
  });

  it("uses a one-time KEM prekey once, then the last-resort one, which is kept", async () => {
    const server = await startTestServer();
    const bob = await member(server.url, "bob:1", { prekeys: { target: 1, threshold: 0 } });
    for (const address of ["carol:1", "dave:1", "erin:1"]) {
      await (await member(server.url, address)).send("bob:1", bytes("hi"));
    }
    expect(await bob.receive()).toHaveLength(3);
    for (const address of ["carol:1", "dave:1", "erin:1"]) {
      expect(await bob.session(address)).toEqual({ address, postQuantum: true });
    }
    const state = parseState(await bob.store.load());
    expect(Object.keys(state.kemPreKeys ?? {})).toEqual([]);
    expect(state.kemLastResortPreKey).toMatchObject({ uploaded: true });
    expect(bob.errors).toEqual([]);
  });

  it("session() of a peer never met is NO_SESSION", async () => {
    const server = await startTestServer();
    const alice = await member(server.url, "alice:1");
    await expect(alice.session("bob:1")).rejects.toMatchObject({
      code: "NO_SESSION",
      message:
        "there is no session with bob:1 yet: the first message sent to or received from bob:1 sets one up",
    });
  });

  it("refuses a bundle stripped of the KEM prekey its KT leaf commits (PQ_DOWNGRADE)", async () => {
    const server = await startTestServer();
    await member(server.url, "bob:1");
    const alice = await member(server.url, "alice:1", { fetch: strippingKem });
    const refused = await alice.send("bob:1", bytes("hi")).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ClientError);
    expect(refused).toMatchObject({ code: "PQ_DOWNGRADE" });
    expect((refused as ClientError).message).toBe(
      "the bundle of bob:1 carries no ML-KEM prekey, but its key-transparency leaf commits one: refused rather than fall back to classic X3DH",
    );
    await expect(alice.session("bob:1")).rejects.toMatchObject({ code: "NO_SESSION" });
  });

  it("refuses, with KT off, a bundle without KEM prekey of a peer once seen with one", async () => {
    const server = await startTestServer();
    await member(server.url, "bob:1");
    const store = memoryStore();
    const alice = await member(server.url, "alice:1", { kt: "off", store });
    await alice.send("bob:1", bytes("hi"));
    await alice.close();

    const downgraded = await testClient(server.url, { kt: "off", store, fetch: strippingKem });
    await expect(downgraded.trust("bob:1")).rejects.toMatchObject({
      code: "PQ_DOWNGRADE",
      message:
        "the bundle of bob:1 carries no ML-KEM prekey, but it was served with an ML-KEM prekey before, under the same identity keys: refused rather than fall back to classic X3DH",
    });
  });

  it("upgrades a state written before KEM prekeys at its next replenish", async () => {
    const server = await startTestServer();
    const carol = await classicMember(server.url, "carol:1");
    const old = structuredClone(await carol.store.load());
    for (const name of ["kemLastResortPreKey", "kemPreKeys", "nextKemPreKeyId"] as const) {
      delete old?.[name];
    }
    await carol.close();
    // A state as an older client wrote it loads, without KEM prekeys.
    expect(parseState(structuredClone(old)).kemLastResortPreKey).toBeUndefined();
    const store = memoryStore();
    await store.save(old as NonNullable<typeof old>);
    const upgraded = await testClient(server.url, { store });
    expect(await upgraded.keysStatus()).toMatchObject({
      kemPreKeysOnServer: 0,
      kemPreKeysLocal: 0,
    });
    await upgraded.replenishPrekeys();
    expect(await upgraded.keysStatus()).toMatchObject({
      kemPreKeysOnServer: 100,
      kemPreKeysLocal: 100,
    });

    const alice = await member(server.url, "alice:1");
    expect((await alice.api.keysBundle("carol:1")).kemPreKey).toMatchObject({ lastResort: false });
    await alice.send("carol:1", bytes("now post-quantum"));
    expect((await upgraded.receive()).map((m) => str(m.plaintext))).toEqual(["now post-quantum"]);
    expect(await upgraded.session("alice:1")).toEqual({ address: "alice:1", postQuantum: true });
  });
});
