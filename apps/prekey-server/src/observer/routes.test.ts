import { inboxBlobs, inboxRegistrations } from "@svc/inbox";
import { identities, oneTimePrekeys } from "@svc/prekeys";
import { pushSubscriptions } from "@svc/push";
import { jsonRequest, registerBody, testIdentity } from "@svc/test-client";
import { describe, expect, it } from "vitest";
import { createTestApp } from "../test-support/app.js";
import { expectContract } from "../test-support/contract.js";
import type { ObserverSnapshot } from "./snapshot.js";

const TOKEN = "observer-token-0123456789";
const env = { SVC_OBSERVER_TOKEN: TOKEN, SVC_KT: "off" };
const auth = { headers: { Authorization: `Bearer ${TOKEN}` } };

async function snapshot(app: Awaited<ReturnType<typeof createTestApp>>["app"]) {
  const res = await app.request("/svc-observer/api/state", auth);
  expect(res.status).toBe(200);
  return (await expectContract(res, "GET", "/svc-observer/api/state")) as ObserverSnapshot;
}

const key = (fill: number, length = 32) => new Uint8Array(length).fill(fill);

describe("observer access", () => {
  it("does not exist without SVC_OBSERVER_TOKEN", async () => {
    const { app } = await createTestApp({ SVC_KT: "off" });
    for (const path of ["/svc-observer/", "/svc-observer/api/state", "/svc-observer/api/events"]) {
      const res = await app.request(path, auth);
      expect(res.status).toBe(404);
    }
  });

  it.each([
    ["no token", {}],
    ["a wrong token", { Authorization: "Bearer observer-token-0123456780" }],
    ["a token prefix", { Authorization: "Bearer observer-token" }],
    ["another scheme", { Authorization: `Basic ${TOKEN}` }],
  ])("refuses %s with 401", async (_, headers) => {
    const { app } = await createTestApp(env);
    const res = await app.request("/svc-observer/api/state", { headers });
    expect(res.status).toBe(401);
    expect(await expectContract(res, "GET", "/svc-observer/api/state")).toMatchObject({
      code: "SVC_UNAUTHORIZED",
    });
  });

  it("accepts ?token= only on the event stream", async () => {
    const { app } = await createTestApp(env);
    const state = await app.request(`/svc-observer/api/state?token=${TOKEN}`);
    expect(state.status).toBe(401);
    const events = await app.request(`/svc-observer/api/events?token=${TOKEN}`);
    expect(events.status).toBe(200);
    await events.body?.cancel();
    const wrong = await app.request("/svc-observer/api/events?token=nope");
    expect(wrong.status).toBe(401);
  });

  it("serves the dashboard page without data", async () => {
    const { app } = await createTestApp(env);
    const res = await app.request("/svc-observer/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('<label for="token">');
    expect(html).not.toContain(TOKEN);
  });
});

describe("observer snapshot", () => {
  it("shows push as off with SVC_PUSH=off", async () => {
    const { app } = await createTestApp({ ...env, SVC_PUSH: "off" });
    expect((await snapshot(app)).push).toEqual({
      enabled: false,
      subscriptions: 0,
      sent: 0,
      failed: 0,
      coalesced: 0,
    });
  });

  it("reads every figure from real state", async () => {
    let now = 1_000_000;
    const svc = await createTestApp(env, { now: () => now });
    const { app, services } = svc;
    const { db } = services.storage;

    const before = await snapshot(app);
    expect(before).toMatchObject({
      service: "svc-prekey-server",
      version: "4.7.0",
      storage: { kind: expect.stringMatching(/^(pglite|postgres)$/), ready: true },
      keys: { identities: 0, oneTimePreKeys: 0 },
      kt: { enabled: false, treeSize: 0, lastSthAt: null },
      inbox: { enabled: true, registrations: 0, queuedBlobs: 0, queuedBytes: 0 },
      bridges: { sse: 0, ws: 0, poll: 0, connectedAddresses: 0, presenceSubscriptions: 0 },
      rateLimited: 0,
      pruneCycles: 0,
      push: { enabled: true, subscriptions: 0, sent: 0, failed: 0, coalesced: 0 },
    });

    now += 5000;
    await db.insert(identities).values({
      address: "alice",
      signingKey: key(1),
      dhKey: key(2),
      signedPreKeyId: 1,
      signedPreKey: key(3),
      signedPreKeySignature: key(4, 64),
      createdAt: now,
      updatedAt: now,
    });
    await db.insert(oneTimePrekeys).values([
      { address: "alice", keyId: 1, publicKey: key(5) },
      { address: "alice", keyId: 2, publicKey: key(6) },
    ]);
    await db
      .insert(inboxRegistrations)
      .values({ address: "bob", signingKey: key(7), createdAt: now });
    const blob = { address: "bob", senderKey: key(8), sender: "key:x", receivedAt: now };
    await db.insert(inboxBlobs).values([
      { ...blob, msgId: "a", ciphertext: new Uint8Array(100), expiresAt: now + 60_000 },
      {
        ...blob,
        msgId: "b",
        ciphertext: new Uint8Array(50),
        receivedAt: now + 1,
        expiresAt: now + 60_000,
      },
      {
        ...blob,
        msgId: "c",
        ciphertext: new Uint8Array(7),
        receivedAt: now + 2,
        expiresAt: now - 1,
      },
    ]);
    services.metrics.bridgesLive.set({ transport: "sse" }, 2);
    services.metrics.bridgesLive.set({ transport: "ws" }, 1);
    services.metrics.rateLimited.inc({ route: "/v1/keys/bundle/:address", limit: "ip" });
    services.metrics.pruneCycles.inc();
    await db.insert(pushSubscriptions).values({
      address: "bob",
      endpoint: "https://203.0.113.7/push",
      p256dh: key(9, 65),
      auth: key(10, 16),
      createdAt: now,
      updatedAt: now,
    });
    services.metrics.pushWakeUps.inc({ outcome: "sent" }, 3);
    services.metrics.pushWakeUps.inc({ outcome: "coalesced" });
    services.metrics.pushWakeUps.inc({ outcome: "gone" });

    const after = await snapshot(app);
    expect(after.uptimeMs).toBe(5000);
    expect(after.keys).toEqual({ identities: 1, oneTimePreKeys: 2 });
    expect(after.inbox).toEqual({
      enabled: true,
      registrations: 1,
      queuedBlobs: 2,
      queuedBytes: 150,
    });
    expect(after.bridges).toMatchObject({ sse: 2, ws: 1, poll: 0 });
    expect(after.rateLimited).toBe(1);
    expect(after.pruneCycles).toBe(1);
    expect(after.push).toEqual({
      enabled: true,
      subscriptions: 1,
      sent: 3,
      failed: 0,
      coalesced: 1,
    });
    expect(after.requests.byStatus["200"]).toBeGreaterThanOrEqual(1);
  });

  it("counts requests by status", async () => {
    const { app } = await createTestApp(env);
    await app.request("/healthz");
    await app.request("/nope");
    await app.request("/nope");
    const { requests } = await snapshot(app);
    expect(requests.byStatus).toMatchObject({ "200": 1, "404": 2 });
  });
});

describe("observer KT figures", () => {
  it("follow the log as identities change", async () => {
    const { app } = await createTestApp({ SVC_OBSERVER_TOKEN: TOKEN });
    const before = await snapshot(app);
    expect(before.kt).toMatchObject({ enabled: true, treeSize: 0 });
    const res = await app.request(
      "/v1/keys/register",
      jsonRequest("POST", registerBody(testIdentity("kt@example.com:1"), Date.now())),
    );
    expect(res.status).toBe(200);
    const after = await snapshot(app);
    expect(after.kt.treeSize).toBe(1);
    expect(after.kt.lastSthAt).toEqual(expect.any(Number));
    expect(after.keys.identities).toBe(1);
  });
});

describe("observer events", () => {
  it("streams a snapshot, then live server events", async () => {
    const { app, services } = await createTestApp(env);
    const res = await app.request("/svc-observer/api/events", auth);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = res.body?.getReader();
    if (!reader) throw new Error("no body");
    const decoder = new TextDecoder();
    let text = "";
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${needle}`);
        text += decoder.decode(value);
      }
    };
    await readUntil("event: snapshot\n");
    services.events.emit("inbox.peer_connected", { address: "alice", at: 42 });
    await readUntil('event: inbox.peer_connected\ndata: {"address":"alice","at":42}\n\n');
    services.events.emit("kt.published", { treeSize: 3, at: 43 });
    await readUntil('event: kt.published\ndata: {"treeSize":3,"at":43}\n\n');
    await reader.cancel();
  });

  it("ends open event streams when the app closes", async () => {
    const svc = await createTestApp(env);
    const res = await svc.app.request("/svc-observer/api/events", auth);
    const reader = res.body?.getReader();
    if (!reader) throw new Error("no body");
    await reader.read();
    await svc.services.close();
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
  });
});
