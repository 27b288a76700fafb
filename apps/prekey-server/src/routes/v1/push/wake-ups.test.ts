import { until } from "@svc/db/testing";
import { bridgeUrl } from "@svc/test-client";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { liveBridges } from "../bridge/test-support/running-server.js";
import { PUSH_CONTACT, startPushServer } from "./test-support/push-server.js";

const decoded = (bytes: Uint8Array | undefined) =>
  bytes === undefined ? undefined : JSON.parse(new TextDecoder().decode(bytes));

/** A moment for a wake-up that is not due to show up if it were sent. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

async function subscribed(path = "/wake") {
  const t = await startPushServer();
  await t.register();
  const subscription = t.endpoint.subscription(path);
  const res = await t.subscribe(subscription);
  expect(res.status).toBe(200);
  return { ...t, path, subscription };
}

describe("wake-ups to a local RFC 8030 push service", () => {
  it("sends one encrypted {v:1, pending} with VAPID, TTL, Urgency and Topic per deposit", async () => {
    const t = await subscribed();
    const before = Math.floor(Date.now() / 1000);
    expect((await t.deposit()).status).toBe(200);
    await until(() => t.endpoint.messages(t.path).length === 1);
    const [message] = t.endpoint.messages(t.path);
    expect(message?.error).toBeUndefined();
    expect(message?.status).toBe(201);
    // Decrypted by http_ece: a count and nothing else (no ciphertext, sender or msgId).
    expect(new TextDecoder().decode(message?.plaintext)).toBe('{"v":1,"pending":1}');
    expect(message?.headers).toMatchObject({
      "content-encoding": "aes128gcm",
      "content-type": "application/octet-stream",
      ttl: "86400",
      urgency: "high",
      topic: "svc-wake",
    });
    const { publicKey } = (await (await fetch(`${t.server.url}/v1/push/vapid`)).json()) as {
      publicKey: string;
    };
    expect(message?.vapidKey).toBe(publicKey);
    const claims = message?.claims as { aud: string; exp: number; sub: string };
    expect(claims.aud).toBe(new URL(t.endpoint.url).origin);
    expect(claims.sub).toBe(PUSH_CONTACT);
    expect(claims.exp).toBeGreaterThan(before);
    expect(claims.exp).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 24 * 3600);
    await until(async () => (await t.wakeUps("sent")) === 1);
  });

  it("coalesces a second deposit until the address fetches, then wakes it again", async () => {
    const t = await subscribed();
    await t.deposit();
    await until(() => t.endpoint.messages(t.path).length === 1);
    await t.deposit();
    await until(async () => (await t.wakeUps("coalesced")) === 1);
    await settle();
    expect(t.endpoint.messages(t.path)).toHaveLength(1);
    expect((await t.fetchInbox()).status).toBe(200);
    await t.deposit();
    await until(() => t.endpoint.messages(t.path).length === 2);
    expect(decoded(t.endpoint.messages(t.path)[1]?.plaintext)).toEqual({ v: 1, pending: 3 });
  });

  it("deletes a subscription the push service answers 410 (or 404) to", async () => {
    const t = await subscribed();
    const other = t.endpoint.subscription("/lost");
    await t.subscribe(other);
    t.endpoint.answer(t.path, { statuses: [410] });
    t.endpoint.answer("/lost", { statuses: [404] });
    await t.deposit();
    await until(async () => (await t.wakeUps("gone")) === 2);
    expect(await t.stored()).toEqual([]);
  });

  it("retries 429 and 503 as Retry-After says, then counts the wake-up sent", async () => {
    const t = await subscribed();
    t.endpoint.answer(t.path, { statuses: [429, 503], retryAfter: "0" });
    await t.deposit();
    await until(async () => (await t.wakeUps("sent")) === 1);
    expect(t.endpoint.messages(t.path).map((m) => m.status)).toEqual([429, 503, 201]);
    expect(await t.wakeUps("failed")).toBe(0);
  });

  it("never follows a redirect: the wake-up fails, the target hears nothing", async () => {
    const t = await subscribed();
    t.endpoint.subscription("/elsewhere");
    t.endpoint.answer(t.path, { redirectTo: `${t.endpoint.url}/elsewhere` });
    await t.deposit();
    await until(async () => (await t.wakeUps("failed")) === 1);
    expect(t.endpoint.messages(t.path)).toHaveLength(1);
    expect(t.endpoint.messages("/elsewhere")).toEqual([]);
    expect(await t.stored()).toHaveLength(1);
  });

  it("answers deposits while the push service hangs", async () => {
    const t = await subscribed();
    t.endpoint.answer(t.path, { hang: true });
    expect((await t.deposit()).status).toBe(200);
    await until(() => t.endpoint.messages(t.path).length === 1);
    // The request is still unanswered; a deposit (after a fetch, so it is due a wake-up) is not.
    await t.fetchInbox();
    expect((await t.deposit()).status).toBe(200);
    expect((await t.deposit()).status).toBe(200);
    expect(t.endpoint.messages(t.path).every((m) => m.status === undefined)).toBe(true);
  });

  it("sends nothing while an SSE or WebSocket bridge of the address is open", async () => {
    const t = await subscribed();
    const controller = new AbortController();
    const stream = await fetch(bridgeUrl(t.server.url, "stream", t.owner, t.address), {
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    await until(async () => (await liveBridges(t.server, "sse")) === 1);
    await t.deposit();
    const socket = new WebSocket(
      bridgeUrl(t.server.url, "ws", t.owner, t.address).replace(/^http/, "ws"),
    );
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    controller.abort();
    await until(async () => (await liveBridges(t.server, "sse")) === 0);
    await t.deposit();
    await settle();
    expect(t.endpoint.messages(t.path)).toEqual([]);
    // The last bridge closes with the two blobs it was handed still queued (nobody acked them):
    // the address is woken then, as after a deposit, and the next deposit is coalesced.
    socket.close();
    await until(() => t.endpoint.messages(t.path).length === 1);
    expect(decoded(t.endpoint.messages(t.path)[0]?.plaintext)).toEqual({ v: 1, pending: 2 });
    await t.deposit();
    await until(async () => (await t.wakeUps("coalesced")) === 1);
    expect(t.endpoint.messages(t.path)).toHaveLength(1);
  });

  it("wakes nothing when the last bridge closes with nothing queued", async () => {
    const t = await subscribed();
    const controller = new AbortController();
    const stream = await fetch(bridgeUrl(t.server.url, "stream", t.owner, t.address), {
      signal: controller.signal,
    });
    await until(async () => (await liveBridges(t.server, "sse")) === 1);
    await t.deposit();
    const { items } = (await (await t.fetchInbox()).json()) as { items: Array<{ msgId: string }> };
    expect(items).toHaveLength(1);
    expect((await t.ack(String(items[0]?.msgId))).status).toBe(200);
    expect(stream.status).toBe(200);
    controller.abort();
    await until(async () => (await liveBridges(t.server, "sse")) === 0);
    await settle();
    expect(t.endpoint.messages(t.path)).toEqual([]);
  });

  it("wakes with a long-poll open: a long-poll is not a live bridge", async () => {
    const t = await subscribed();
    const poll = fetch(bridgeUrl(t.server.url, "poll", t.owner, t.address, { since: 0 }));
    await until(async () => (await liveBridges(t.server, "poll")) === 1);
    await t.deposit();
    await until(() => t.endpoint.messages(t.path).length === 1);
    expect((await poll).status).toBe(200);
  });
});

describe("shutdown", () => {
  it("stops with a wake-up request hanging, without waiting for it to end", async () => {
    const t = await subscribed();
    t.endpoint.answer(t.path, { hang: true });
    await t.deposit();
    await until(() => t.endpoint.messages(t.path).length === 1);
    await t.server.stop();
    expect(t.endpoint.messages(t.path)).toHaveLength(1);
  });
});

describe("the endpoint policy at request time", () => {
  it("sends no request to a private endpoint stored before the policy changed", async () => {
    const { endpoint, ...t } = await startPushServer({ SVC_PUSH_ALLOW_PRIVATE_ENDPOINTS: "off" });
    await t.register();
    const subscription = endpoint.subscription("/private");
    // Stored as a server with the private classes allowed would have stored it.
    const { decodeSubscriptionKeys } = await import("@svc/web-push");
    const { createPushSubscriptions } = await import("@svc/push");
    await createPushSubscriptions(t.server.svc.services.storage.db).subscribe(
      t.address,
      {
        endpoint: subscription.endpoint,
        ...decodeSubscriptionKeys(subscription.keys.p256dh, subscription.keys.auth),
        expiresAt: null,
      },
      { now: Date.now(), max: 8 },
    );
    await t.deposit();
    await until(async () => (await t.wakeUps("refused")) === 1);
    expect(endpoint.messages("/private")).toEqual([]);
  });
});
