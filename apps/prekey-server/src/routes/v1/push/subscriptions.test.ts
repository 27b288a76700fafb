import { encodeBase64Url } from "@svc/canonical";
import { createPushSubscriptions } from "@svc/push";
import { InboxClient, inProcess, party, T0 } from "@svc/test-client";
import { type PushEndpoint, startPushEndpoint } from "@svc/web-push/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, TEST_PUSH_VAPID_KEY } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";

const ALICE = "alice@example.org:1";
const alice = party("alice");
const mallory = party("mallory");
const PATH = "/v1/push/subscriptions";
// Endpoints on 203.0.113.7: a public address as an IP literal, taken without a DNS lookup.
const KEYS = {
  // An uncompressed P-256 point (the generator) and a 16-byte secret, unpadded base64url.
  p256dh: "BGsX0fLhLEJH-Lzm5WOkQPJ3A32BLeszoPShOUXYmMKWT-NC4v4af5uO5-tKfA-eFivOM1drMV7Oy7ZAaDe_UfU",
  auth: encodeBase64Url(new Uint8Array(16).fill(7)),
};
const sub = (endpoint: string, fields: Record<string, unknown> = {}) => ({
  endpoint,
  keys: KEYS,
  ...fields,
});

const endpoints: PushEndpoint[] = [];
afterEach(async () => {
  await Promise.all(endpoints.splice(0).map((e) => e.close()));
});

async function setup(env: Record<string, string> = {}) {
  const svc = await createTestApp({ SVC_RATE_LIMIT: "off", ...env }, { now: () => T0 });
  const client = new InboxClient(inProcess(svc.app));
  expect((await client.register(ALICE, alice)).status).toBe(200);
  const subscribe = (subscription: unknown, signer = alice, address: string = ALICE) =>
    client.send("POST", PATH, client.signed("POST", PATH, { address, subscription }, signer));
  const unsubscribe = (endpoint: string, signer = alice, address: string = ALICE) =>
    client.send("DELETE", PATH, client.signed("DELETE", PATH, { address, endpoint }, signer));
  const stored = () => createPushSubscriptions(svc.services.storage.db).ofAddresses([ALICE]);
  return { svc, client, subscribe, unsubscribe, stored };
}

describe("GET /v1/push/vapid", () => {
  it("answers the public key of SVC_PUSH_VAPID_KEY", async () => {
    const { svc } = await setup();
    const res = await svc.app.request("/v1/push/vapid");
    expect(res.status).toBe(200);
    const { publicKey } = (await expectContract(res, "GET", "/v1/push/vapid")) as {
      publicKey: string;
    };
    expect(publicKey).toMatch(/^B[A-Za-z0-9_-]{86}$/);
    const { vapidKeysFromPrivate } = await import("@svc/web-push");
    const { decodeBase64Url } = await import("@svc/canonical");
    expect(publicKey).toBe(
      encodeBase64Url(vapidKeysFromPrivate(decodeBase64Url(TEST_PUSH_VAPID_KEY)).publicKey),
    );
  });
});

describe("POST and DELETE /v1/push/subscriptions", () => {
  it("adds a subscription, renews it without counting twice, and removes it", async () => {
    const { subscribe, unsubscribe, stored, svc } = await setup();
    const endpoint = "https://203.0.113.7/send/a";
    // A browser's own JSON: expirationTime null; padded keys are taken too.
    const first = await subscribe(sub(endpoint, { expirationTime: null }));
    expect(first.status).toBe(200);
    expect(await expectContract(first, "POST", PATH)).toEqual({ ok: true });
    const padded = { p256dh: `${KEYS.p256dh}=`, auth: `${KEYS.auth}==` };
    expect((await subscribe({ endpoint, keys: padded, expirationTime: T0 + 1000 })).status).toBe(
      200,
    );
    expect((await stored()).map((s) => [s.endpoint, s.expiresAt])).toEqual([[endpoint, T0 + 1000]]);
    const removed = await unsubscribe(endpoint);
    expect(removed.status).toBe(200);
    expect(await expectContract(removed, "DELETE", PATH)).toEqual({ ok: true, removed: true });
    const again = await unsubscribe(endpoint);
    expect(await expectContract(again, "DELETE", PATH)).toEqual({ ok: true, removed: false });
    const metrics = await (await svc.app.request("/metrics")).text();
    expect(metrics).toMatch(/svc_push_subscription_changes_total\{change="added"\} 1/);
    expect(metrics).toMatch(/svc_push_subscription_changes_total\{change="renewed"\} 1/);
    expect(metrics).toMatch(/svc_push_subscription_changes_total\{change="removed"\} 1/);
  });

  it("refuses a ninth endpoint with 409 SVC_TOO_MANY_SUBSCRIPTIONS, renewals still pass", async () => {
    const { subscribe } = await setup();
    for (let n = 1; n <= 8; n++) {
      expect((await subscribe(sub(`https://203.0.113.7/${n}`))).status).toBe(200);
    }
    const ninth = await subscribe(sub("https://203.0.113.7/9"));
    expect(ninth.status).toBe(409);
    expect(await expectContract(ninth, "POST", PATH)).toMatchObject({
      code: "SVC_TOO_MANY_SUBSCRIPTIONS",
    });
    expect((await subscribe(sub("https://203.0.113.7/8"))).status).toBe(200);
  });

  it("answers 401 for an address without inbox registration, another key, a bad or stale signature", async () => {
    const { client, subscribe, unsubscribe } = await setup();
    const endpoint = "https://203.0.113.7/x";
    const cases: Array<[Response, number, string]> = [
      [await subscribe(sub(endpoint), alice, "bob@example.org:1"), 401, "SVC_WRONG_KEY"],
      [await subscribe(sub(endpoint), mallory), 401, "SVC_BAD_SIGNATURE"],
      [await unsubscribe(endpoint, mallory), 401, "SVC_BAD_SIGNATURE"],
      [await unsubscribe(endpoint, alice, "bob@example.org:1"), 401, "SVC_WRONG_KEY"],
      [
        await client.send(
          "POST",
          PATH,
          client.signed(
            "POST",
            PATH,
            { address: ALICE, subscription: sub(endpoint), signedAt: T0 - 300_001 },
            alice,
          ),
        ),
        401,
        "SVC_STALE_SIGNATURE",
      ],
      [
        await client.send("POST", PATH, {
          ...client.signed("POST", PATH, { address: ALICE, subscription: sub(endpoint) }, alice),
          address: "alice@example.org:2",
        }),
        401,
        "SVC_WRONG_KEY",
      ],
      // Signed for another route: the path is part of what is signed.
      [
        await client.send(
          "POST",
          PATH,
          client.signed(
            "POST",
            "/v1/inbox/register",
            { address: ALICE, subscription: sub(endpoint) },
            alice,
          ),
        ),
        401,
        "SVC_BAD_SIGNATURE",
      ],
    ];
    for (const [res, status, code] of cases) {
      expect(res.status).toBe(status);
      expect(await expectContract(res, "POST", PATH)).toMatchObject({ code });
    }
  });

  it("answers bad bodies and keys with 400 naming the problem", async () => {
    const { client, subscribe } = await setup();
    const endpoint = "https://203.0.113.7/x";
    const signed = (fields: Record<string, unknown>) =>
      client.send("POST", PATH, client.signed("POST", PATH, fields, alice));
    const cases: Array<[Response, string, RegExp?]> = [
      [await client.send("POST", PATH, "not json"), "SVC_BAD_REQUEST"],
      [await signed({ address: ALICE }), "SVC_BAD_REQUEST"],
      [await signed({ address: ALICE, subscription: sub(endpoint), extra: 1 }), "SVC_BAD_REQUEST"],
      [await subscribe({ endpoint, keys: { ...KEYS, extra: "x" } }), "SVC_BAD_REQUEST"],
      [await subscribe(sub("")), "SVC_BAD_REQUEST"],
      [await subscribe(sub(`https://203.0.113.7/${"a".repeat(1024)}`)), "SVC_BAD_REQUEST"],
      [await subscribe(sub(endpoint), alice, "bad,address"), "SVC_INVALID_ADDRESS"],
      [
        await subscribe({
          endpoint,
          keys: { ...KEYS, p256dh: encodeBase64Url(new Uint8Array(65)) },
        }),
        "SVC_INVALID_PUSH_SUBSCRIPTION",
        /p256dh/,
      ],
      [
        await subscribe({ endpoint, keys: { ...KEYS, auth: encodeBase64Url(new Uint8Array(15)) } }),
        "SVC_INVALID_PUSH_SUBSCRIPTION",
        /auth/,
      ],
      [
        await subscribe(sub(endpoint, { expirationTime: T0 })),
        "SVC_INVALID_PUSH_SUBSCRIPTION",
        /expirationTime/,
      ],
    ];
    for (const [res, code, message] of cases) {
      expect(res.status).toBe(400);
      const body = (await expectContract(res, "POST", PATH)) as { code: string; message: string };
      expect(body.code).toBe(code);
      if (message) expect(body.message).toMatch(message);
    }
    const large = await client.send("POST", PATH, { address: ALICE, pad: "x".repeat(70_000) });
    expect(large.status).toBe(413);
  });

  it("refuses http, loopback, private and loopback-resolving endpoints without a request to them", async () => {
    const { subscribe, stored } = await setup();
    const local = await startPushEndpoint();
    endpoints.push(local);
    const port = new URL(local.url).port;
    const refusals: Array<[string, string]> = [
      [`http://push.example.net/a`, "endpoint must be https"],
      [local.subscription("/plain").endpoint, "endpoint must be https"],
      [
        `https://127.0.0.1:${port}/a`,
        "endpoint resolves to a private, loopback or link-local address",
      ],
      [`https://10.1.2.3/a`, "endpoint resolves to a private, loopback or link-local address"],
      [`https://[::1]:${port}/a`, "endpoint resolves to a private, loopback or link-local address"],
      [
        `https://localhost:${port}/a`,
        "endpoint resolves to a private, loopback or link-local address",
      ],
      [
        `https://169.254.169.254/latest`,
        "endpoint resolves to a private, loopback or link-local address",
      ],
      [`https://user:pw@push.example.net/a`, "endpoint is not a URL"],
      ["not a url", "endpoint is not a URL"],
    ];
    for (const [endpoint, reason] of refusals) {
      const res = await subscribe(sub(endpoint));
      expect(res.status, endpoint).toBe(400);
      expect(await expectContract(res, "POST", PATH)).toMatchObject({
        code: "SVC_PUSH_ENDPOINT_REFUSED",
        message: reason,
      });
    }
    expect(await stored()).toEqual([]);
    expect(local.messages("/plain")).toEqual([]);
  });

  it("takes plain http on a private address with SVC_PUSH_ALLOW_PRIVATE_ENDPOINTS=on", async () => {
    const { subscribe } = await setup({ SVC_PUSH_ALLOW_PRIVATE_ENDPOINTS: "on" });
    expect((await subscribe(sub("http://127.0.0.1:9/a"))).status).toBe(200);
    expect((await subscribe(sub("https://10.0.0.1/a"))).status).toBe(200);
  });

  it("drops the address's subscriptions when it unregisters its inbox", async () => {
    const { client, subscribe, stored } = await setup();
    await subscribe(sub("https://203.0.113.7/a"));
    expect(await stored()).toHaveLength(1);
    expect((await client.unregister(ALICE, alice)).status).toBe(200);
    expect(await stored()).toEqual([]);
  });
});

describe("with SVC_PUSH=off or the inbox off", () => {
  it.each<Record<string, string>>([{ SVC_PUSH: "off" }, { SVC_INBOX: "off" }])(
    "answers every push route 404 SVC_FEATURE_DISABLED (%j)",
    async (env) => {
      const svc = await createTestApp(env, { now: () => T0 });
      for (const [method, path] of [
        ["GET", "/v1/push/vapid"],
        ["POST", PATH],
        ["DELETE", PATH],
      ] as const) {
        const res = await svc.app.request(path, {
          method,
          body: method === "GET" ? undefined : "{}",
        });
        expect(res.status).toBe(404);
        expect(await expectContract(res, method, path)).toMatchObject({
          code: "SVC_FEATURE_DISABLED",
        });
      }
    },
  );
});
