import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { policyLookup, REFUSAL } from "./endpoint-policy.js";
import { PushError } from "./errors.js";
import { type SendOptions, sendWebPush } from "./send.js";
import { decodeSubscriptionKeys } from "./subscription-keys.js";
import { type PushEndpoint, startPushEndpoint } from "./testing.js";
import { generateVapidKeys, vapidPublicKeyBase64Url } from "./vapid-keys.js";

vi.mock("node:dns", async (importOriginal) => {
  const { offlineDns } = await import("./test-support/offline-dns.js");
  return offlineDns(await importOriginal());
});

const vapid = generateVapidKeys();
const wakeUp = new TextEncoder().encode('{"v":1,"pending":3}');
let endpoint: PushEndpoint;

beforeAll(async () => {
  endpoint = await startPushEndpoint({ vapidPublicKey: vapidPublicKeyBase64Url(vapid) });
});
afterAll(() => endpoint.close());

/** A subscription at `path` as sendWebPush takes it. */
function target(path: string) {
  const subscription = endpoint.subscription(path);
  const keys = decodeSubscriptionKeys(subscription.keys.p256dh, subscription.keys.auth);
  return { endpoint: subscription.endpoint, ...keys };
}

/** Options whose sleep records its waits and returns at once; backoff waits are not stretched. */
function options(extra: Partial<SendOptions> = {}) {
  const slept: number[] = [];
  const sendOptions: SendOptions = {
    vapid,
    subject: "mailto:ops@example.org",
    allowPrivate: true,
    topic: "svc-wake",
    sleep: async (ms) => {
      slept.push(ms);
    },
    random: () => 0,
    ...extra,
  };
  return { options: sendOptions, slept };
}

describe("sendWebPush", () => {
  it("delivers the encrypted wake-up with VAPID, TTL, Urgency and Topic: sent", async () => {
    const { options: o, slept } = options();
    const outcome = await sendWebPush(target("/sent"), wakeUp, o);
    expect(outcome).toEqual({ outcome: "sent", status: 201, attempts: 1 });
    expect(slept).toEqual([]);
    const [message, ...more] = endpoint.messages("/sent");
    expect(more).toEqual([]);
    expect(message?.error).toBeUndefined();
    expect(new TextDecoder().decode(message?.plaintext)).toBe('{"v":1,"pending":3}');
    expect(message?.headers).toMatchObject({
      "content-encoding": "aes128gcm",
      "content-type": "application/octet-stream",
      ttl: "86400",
      urgency: "high",
      topic: "svc-wake",
    });
    expect(message?.vapidKey).toBe(vapidPublicKeyBase64Url(vapid));
    expect(message?.claims).toMatchObject({ aud: endpoint.url, sub: "mailto:ops@example.org" });
  });

  it.each([410, 404])("answers gone on %i, without a retry", async (status) => {
    endpoint.answer(`/gone-${status}`, { statuses: [status] });
    const { options: o, slept } = options();
    expect(await sendWebPush(target(`/gone-${status}`), wakeUp, o)).toEqual({
      outcome: "gone",
      status,
      attempts: 1,
    });
    expect(slept).toEqual([]);
    expect(endpoint.messages(`/gone-${status}`)).toHaveLength(1);
  });

  it("retries a 429 after its Retry-After", async () => {
    endpoint.answer("/busy", { statuses: [429, 201], retryAfter: "1" });
    const { options: o, slept } = options();
    expect(await sendWebPush(target("/busy"), wakeUp, o)).toEqual({
      outcome: "sent",
      status: 201,
      attempts: 2,
    });
    expect(slept).toEqual([1000]);
    expect(endpoint.messages("/busy").map((m) => m.status)).toEqual([429, 201]);
  });

  it("fails after 3 attempts of 503, waiting 1 s then 2 s", async () => {
    endpoint.answer("/down", { statuses: [503, 503, 503] });
    const { options: o, slept } = options();
    expect(await sendWebPush(target("/down"), wakeUp, o)).toEqual({
      outcome: "failed",
      status: 503,
      attempts: 3,
      reason: "HTTP 503",
    });
    expect(slept).toEqual([1000, 2000]);
    expect(endpoint.messages("/down")).toHaveLength(3);
  });

  it("fails on a redirect and does not follow it", async () => {
    const elsewhere = target("/elsewhere");
    endpoint.answer("/moved", { redirectTo: elsewhere.endpoint });
    const { options: o, slept } = options();
    expect(await sendWebPush(target("/moved"), wakeUp, o)).toEqual({
      outcome: "failed",
      status: 301,
      attempts: 1,
      reason: "HTTP 301",
    });
    expect(slept).toEqual([]);
    expect(endpoint.messages("/moved")).toHaveLength(1);
    expect(endpoint.messages("/elsewhere")).toEqual([]);
  });

  it("gives up on an endpoint that never answers after its timeout, retried", async () => {
    endpoint.answer("/hang", { hang: true });
    const { options: o, slept } = options({ timeoutMs: 100 });
    expect(await sendWebPush(target("/hang"), wakeUp, o)).toEqual({
      outcome: "failed",
      attempts: 3,
      reason: "timeout",
    });
    expect(slept).toEqual([1000, 2000]);
    expect(endpoint.messages("/hang")).toHaveLength(3);
  });

  it("refuses a loopback endpoint without allowPrivate and makes no request", async () => {
    const t = target("/private");
    const { options: o } = options({ allowPrivate: false });
    expect(await sendWebPush(t, wakeUp, o)).toEqual({
      outcome: "refused",
      attempts: 0,
      reason: REFUSAL.notHttps,
    });
    const https = { ...t, endpoint: t.endpoint.replace("http:", "https:") };
    expect(await sendWebPush(https, wakeUp, o)).toEqual({
      outcome: "refused",
      attempts: 0,
      reason: REFUSAL.private,
    });
    expect(endpoint.messages("/private")).toEqual([]);
  });

  it("refuses a name resolving to loopback at connect time, before any request", async () => {
    const t = target("/by-name");
    const byName = { ...t, endpoint: t.endpoint.replace("http://127.0.0.1", "https://localhost") };
    const { options: o } = options({ allowPrivate: false });
    expect(await sendWebPush(byName, wakeUp, o)).toEqual({
      outcome: "refused",
      attempts: 0,
      reason: REFUSAL.private,
    });
    expect(endpoint.messages("/by-name")).toEqual([]);
  });

  it("fails a name that does not resolve, as a network error, after its retries", async () => {
    const t = { ...target("/nowhere"), endpoint: "https://push.invalid/x" };
    const { options: o, slept } = options({ allowPrivate: false });
    expect(await sendWebPush(t, wakeUp, o)).toEqual({
      outcome: "failed",
      attempts: 3,
      reason: "ENOTFOUND",
    });
    expect(slept).toEqual([1000, 2000]);
  });

  it("answers failed, never throws, for a target whose keys are not a subscription's", async () => {
    const t = { ...target("/bad-keys"), auth: new Uint8Array(3) };
    const { options: o } = options();
    expect(await sendWebPush(t, wakeUp, o)).toEqual({
      outcome: "failed",
      attempts: 0,
      reason: "auth must be 16 bytes",
    });
    expect(await sendWebPush({ ...t, endpoint: "::" }, wakeUp, o)).toEqual({
      outcome: "refused",
      attempts: 0,
      reason: REFUSAL.notUrl,
    });
  });

  it("fails a network error after its retries", async () => {
    const closed = await startPushEndpoint();
    const t = { ...target("/x"), endpoint: `${closed.url}/x` };
    await closed.close();
    const { options: o, slept } = options();
    expect(await sendWebPush(t, wakeUp, o)).toEqual({
      outcome: "failed",
      attempts: 3,
      reason: "ECONNREFUSED",
    });
    expect(slept).toEqual([1000, 2000]);
  });
});

describe("policyLookup", () => {
  it("refuses the connection when the name resolves to a refused class", async () => {
    const url = new URL(endpoint.url);
    const error = await new Promise<unknown>((resolve) => {
      const req = request(
        {
          host: "localhost",
          port: url.port,
          path: "/lookup",
          lookup: policyLookup({ allowPrivate: false }),
        },
        () => resolve(undefined),
      );
      req.on("error", resolve);
      req.end();
    });
    expect(error).toBeInstanceOf(PushError);
    expect(error).toMatchObject({ code: "ENDPOINT_REFUSED", message: REFUSAL.private });
    expect(endpoint.messages("/lookup")).toEqual([]);
  });
});
