import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encryptWakeUp } from "./encrypt.js";
import { sendWebPush } from "./send.js";
import { decodeSubscriptionKeys } from "./subscription-keys.js";
import { type PushEndpoint, startPushEndpoint } from "./testing.js";
import { vapidAuthorization } from "./vapid-jwt.js";
import { generateVapidKeys, vapidPublicKeyBase64Url } from "./vapid-keys.js";

// The test endpoint refuses what a push service refuses, so a sender's mistake fails a test.

const vapid = generateVapidKeys();
let endpoint: PushEndpoint;

beforeAll(async () => {
  endpoint = await startPushEndpoint({ vapidPublicKey: vapidPublicKeyBase64Url(vapid) });
});
afterAll(() => endpoint.close());

function post(path: string, headers: Record<string, string>, body: Uint8Array) {
  return fetch(`${endpoint.url}${path}`, { method: "POST", headers, body });
}

describe("startPushEndpoint", () => {
  const plaintext = new TextEncoder().encode('{"v":1,"pending":1}');

  it("records a valid message with its headers, plaintext and arrival time", async () => {
    const subscription = endpoint.subscription("/ok");
    const keys = decodeSubscriptionKeys(subscription.keys.p256dh, subscription.keys.auth);
    const before = Date.now();
    const answer = await post(
      "/ok",
      {
        Authorization: vapidAuthorization(subscription.endpoint, vapid, undefined, Date.now()),
        "Content-Encoding": "aes128gcm",
        TTL: "60",
      },
      encryptWakeUp(plaintext, keys),
    );
    expect(answer.status).toBe(201);
    const [message] = endpoint.messages("/ok");
    expect(message?.plaintext).toEqual(plaintext);
    expect(message?.headers.ttl).toBe("60");
    expect(message?.claims).toEqual({ aud: endpoint.url, exp: expect.any(Number) });
    expect(message?.receivedAt).toBeGreaterThanOrEqual(before);
  });

  it("refuses another VAPID key, a bad signature, a wrong aud and a body it cannot decrypt", async () => {
    const subscription = endpoint.subscription("/bad");
    const keys = decodeSubscriptionKeys(subscription.keys.p256dh, subscription.keys.auth);
    const body = encryptWakeUp(plaintext, keys);
    const auth = vapidAuthorization(subscription.endpoint, vapid, undefined, Date.now());
    const tampered = auth.replace(
      /\.([\w-])([\w-]+), k=/,
      (_m, first, rest) => `.${first === "A" ? "B" : "A"}${rest}, k=`,
    );
    const cases = [
      [vapidAuthorization(subscription.endpoint, generateVapidKeys(), undefined, Date.now()), body],
      [tampered, body],
      [vapidAuthorization("https://other.example", vapid, undefined, Date.now()), body],
      [auth, encryptWakeUp(plaintext, { ...keys, auth: new Uint8Array(16) })],
    ] as const;
    const statuses = [];
    for (const [authorization, payload] of cases) {
      const answer = await post(
        "/bad",
        { Authorization: authorization, "Content-Encoding": "aes128gcm", TTL: "60" },
        payload,
      );
      statuses.push(answer.status);
    }
    expect(statuses).toEqual([401, 401, 401, 400]);
    expect(endpoint.messages("/bad").map((m) => m.error)).toEqual([
      "unknown VAPID key",
      "bad JWT signature",
      "JWT aud is not this origin",
      expect.stringMatching(/^cannot decrypt/),
    ]);
  });

  it("answers 404 for a path with no subscription, which a sender takes as gone", async () => {
    const subscription = endpoint.subscription("/known");
    const keys = decodeSubscriptionKeys(subscription.keys.p256dh, subscription.keys.auth);
    const outcome = await sendWebPush({ endpoint: `${endpoint.url}/unknown`, ...keys }, plaintext, {
      vapid,
      subject: undefined,
      allowPrivate: true,
    });
    expect(outcome).toEqual({ outcome: "gone", status: 404, attempts: 1 });
  });
});
