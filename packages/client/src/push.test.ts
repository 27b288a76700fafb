import { decodeBase64, portableEd25519 } from "@svc/canonical";
import { ROUTES, SvcError, signedBodyMessage } from "@svc/protocol";
import { describe, expect, it } from "vitest";
import { ClientError } from "./errors.js";
import { member, testClient } from "./test-support/clients.js";
import { startTestServer } from "./test-support/server.js";
import { hookedFetch } from "./test-support/wire.js";

/** A subscription as a browser's PushSubscription.toJSON() gives it (keys: RFC 8291's example). */
const SUBSCRIPTION = {
  endpoint: "https://push.example.net/send/abc123",
  expirationTime: null,
  keys: {
    p256dh:
      "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
    auth: "BTBZMqHH6r4Tts7J_aSIgg",
  },
};

interface Sent {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
}

/**
 * A registered client whose push requests are answered by `answer` (the rest reach the real
 * server), each one recorded as sent.
 */
async function pushClient(answer: (sent: Sent) => { status: number; json: unknown }) {
  const server = await startTestServer();
  const sent: Sent[] = [];
  const fetch = hookedFetch(async (request, forward) => {
    if (!request.url.pathname.startsWith("/v1/push/")) return forward();
    const entry = {
      method: request.method,
      path: request.url.pathname,
      body: request.body === undefined ? undefined : JSON.parse(request.body),
    };
    sent.push(entry);
    const { status, json } = answer(entry);
    return new Response(JSON.stringify(json), {
      status,
      headers: { "content-type": "application/json" },
    });
  });
  const client = await member(server.url, "alice:1", { fetch });
  const { identitySigningKey } = await client.whoami();
  /** Whether a signed body's signature is the address's inbox key's over its D3 message. */
  const verifies = ({ method, path, body }: Sent) =>
    portableEd25519.verify(
      decodeBase64(String(body?.signature), 64),
      signedBodyMessage(method, path, body ?? {}),
      decodeBase64(identitySigningKey, 32),
    );
  return { client, sent, verifies };
}

const ok = (json: unknown) => ({ status: 200, json });

describe("SvcClient push", () => {
  it("subscribes with a body signed by the inbox key, POST /v1/push/subscriptions", async () => {
    const { client, sent, verifies } = await pushClient(() => ok({ ok: true }));
    const before = Date.now();
    await client.subscribePush(SUBSCRIPTION);
    expect(sent).toHaveLength(1);
    const [request] = sent as [Sent];
    expect(request.method).toBe(ROUTES.pushSubscribe.method);
    expect(request.path).toBe("/v1/push/subscriptions");
    expect(Object.keys(request.body ?? {}).sort()).toEqual([
      "address",
      "signature",
      "signedAt",
      "subscription",
    ]);
    expect(request.body).toMatchObject({ address: "alice:1", subscription: SUBSCRIPTION });
    expect(request.body?.signedAt).toBeGreaterThanOrEqual(before);
    expect(verifies(request)).toBe(true);
    // The signature binds the method and the path: the same body elsewhere does not verify.
    expect(verifies({ ...request, method: "DELETE" })).toBe(false);
    expect(verifies({ ...request, path: "/v1/inbox/register" })).toBe(false);
  });

  it("unsubscribes with a signed DELETE and gives back whether one was removed", async () => {
    let removed = true;
    const { client, sent, verifies } = await pushClient(() => ok({ ok: true, removed }));
    expect(await client.unsubscribePush(SUBSCRIPTION.endpoint)).toEqual({ removed: true });
    removed = false;
    expect(await client.unsubscribePush(SUBSCRIPTION.endpoint)).toEqual({ removed: false });
    const [request] = sent as [Sent];
    expect(request.method).toBe("DELETE");
    expect(request.path).toBe("/v1/push/subscriptions");
    expect(Object.keys(request.body ?? {}).sort()).toEqual([
      "address",
      "endpoint",
      "signature",
      "signedAt",
    ]);
    expect(request.body).toMatchObject({ address: "alice:1", endpoint: SUBSCRIPTION.endpoint });
    expect(verifies(request)).toBe(true);
  });

  it("reads the VAPID key with an anonymous GET /v1/push/vapid", async () => {
    const publicKey = SUBSCRIPTION.keys.p256dh;
    const { client, sent } = await pushClient(() => ok({ publicKey }));
    expect(await client.pushVapidKey()).toBe(publicKey);
    expect(sent).toEqual([{ method: "GET", path: "/v1/push/vapid", body: undefined }]);
  });

  it("refuses a subscription of another shape with a TypeError, sending nothing", async () => {
    const { client, sent } = await pushClient(() => ok({ ok: true }));
    const { auth: _, ...noAuth } = SUBSCRIPTION.keys;
    const shapes: Array<[unknown, RegExp]> = [
      [{ ...SUBSCRIPTION, keys: noAuth }, /auth/],
      [{ ...SUBSCRIPTION, keys: { ...SUBSCRIPTION.keys, p256dh: "not base64url!" } }, /p256dh/],
      [{ ...SUBSCRIPTION, endpoint: "" }, /endpoint/],
      [{ ...SUBSCRIPTION, endpoint: `https://x.example/${"a".repeat(1024)}` }, /1024/],
      [{ ...SUBSCRIPTION, expirationTime: -1 }, /expirationTime/],
      [{ ...SUBSCRIPTION, extra: 1 }, /only endpoint, expirationTime and keys/],
      [undefined, /subscription/],
    ];
    for (const [shape, message] of shapes) {
      const error = await client
        .subscribePush(shape as typeof SUBSCRIPTION)
        .catch((e: unknown) => e);
      expect(error, String(message)).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(message);
    }
    await expect(client.unsubscribePush("")).rejects.toThrow(TypeError);
    await expect(client.unsubscribePush(42 as unknown as string)).rejects.toThrow(TypeError);
    expect(sent).toEqual([]);
    // expirationTime may be absent or a time: what browsers and distributors give.
    const { expirationTime: __, ...without } = SUBSCRIPTION;
    await client.subscribePush(without);
    await client.subscribePush({ ...SUBSCRIPTION, expirationTime: Date.now() + 60_000 });
    expect(sent).toHaveLength(2);
  });

  it("throws the server's refusals as SvcError and a malformed answer as BAD_RESPONSE", async () => {
    let answer = { status: 400, json: {} as unknown };
    const { client } = await pushClient(() => answer);
    const refusal = (code: string, status: number) => {
      answer = { status, json: { name: "SvcError", code, message: `${code} here` } };
    };
    refusal("SVC_PUSH_ENDPOINT_REFUSED", 400);
    const refused = await client.subscribePush(SUBSCRIPTION).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SvcError);
    expect(refused).toMatchObject({ code: "SVC_PUSH_ENDPOINT_REFUSED", status: 400 });
    refusal("SVC_TOO_MANY_SUBSCRIPTIONS", 409);
    await expect(client.subscribePush(SUBSCRIPTION)).rejects.toMatchObject({
      code: "SVC_TOO_MANY_SUBSCRIPTIONS",
      status: 409,
    });
    refusal("SVC_FEATURE_DISABLED", 404);
    await expect(client.pushVapidKey()).rejects.toMatchObject({
      code: "SVC_FEATURE_DISABLED",
      status: 404,
    });
    answer = ok({ ok: true });
    const malformed = await client.unsubscribePush(SUBSCRIPTION.endpoint).catch((e) => e);
    expect(malformed).toBeInstanceOf(ClientError);
    expect(malformed).toMatchObject({ code: "BAD_RESPONSE" });
    answer = ok({ key: "x" });
    await expect(client.pushVapidKey()).rejects.toMatchObject({ code: "BAD_RESPONSE" });
  });

  it("needs an identity to subscribe or unsubscribe (NO_IDENTITY)", async () => {
    const client = await testClient("http://127.0.0.1:1");
    await expect(client.subscribePush(SUBSCRIPTION)).rejects.toMatchObject({
      code: "NO_IDENTITY",
    });
    await expect(client.unsubscribePush(SUBSCRIPTION.endpoint)).rejects.toMatchObject({
      code: "NO_IDENTITY",
    });
  });
});
