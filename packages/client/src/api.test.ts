import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ed25519KeyPairFromSeed, encodeBase64 } from "@svc/canonical";
import {
  deviceListToJson,
  firstDeviceList,
  msgIdOf,
  ROUTES,
  type RouteContract,
  type RouteName,
  SvcError,
} from "@svc/protocol";
import { createIdentity, createOneTimePreKey, createSignedPreKey } from "@svc/ratchet";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { type ApiRouteName, createApi, type SvcApi } from "./api.js";
import { ClientError } from "./errors.js";
import { startTestServer } from "./test-support/server.js";

/** A user agent's P-256 key and authentication secret: RFC 8291's example. */
const RFC8291_KEYS = {
  p256dh: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
  auth: "BTBZMqHH6r4Tts7J_aSIgg",
};

/** The JSON routes of the prekey server but the observer's: what SvcApi has a method for. */
const API_ROUTES = (Object.keys(ROUTES) as RouteName[]).filter((name) => {
  const route: RouteContract = ROUTES[name];
  return route.response && !route.server && route.auth !== "observer-token";
}) as ApiRouteName[];

function apiOn(
  server: string,
  options: {
    fetch?: typeof fetch;
    maxRetries?: number;
    now?: () => number;
    requestTimeoutMs?: number;
  } = {},
) {
  return createApi({
    server,
    fetch: options.fetch ?? fetch,
    maxRetries: options.maxRetries ?? 2,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    now: options.now ?? Date.now,
  });
}

/** The route each request was for, matched on ROUTES' method and path templates. */
function routeOf(method: string, url: string): ApiRouteName | undefined {
  const path = new URL(url).pathname;
  return API_ROUTES.find((name) => {
    const route = ROUTES[name];
    const pattern = new RegExp(`^${route.path.replace(/\{[^}]+\}/g, "[^/]+")}$`);
    return route.method === method && pattern.test(path);
  });
}

async function registered(api: SvcApi, address: string) {
  const identity = createIdentity();
  const signedPreKey = createSignedPreKey(identity, 1);
  await api.keysRegister(
    {
      address,
      identitySigningKey: encodeBase64(identity.identitySigningKey),
      identityDHKey: encodeBase64(identity.identityDHKey),
      signedPreKey: {
        keyId: 1,
        publicKey: encodeBase64(signedPreKey.publicKey),
        signature: encodeBase64(signedPreKey.signature),
      },
      oneTimePreKeys: [1, 2].map((keyId) => {
        const key = createOneTimePreKey(keyId);
        return { keyId, publicKey: encodeBase64(key.publicKey) };
      }),
    },
    identity.signingPrivateKey,
  );
  await api.inboxRegister(
    { address, signingPublicKey: encodeBase64(identity.identitySigningKey) },
    identity.signingPrivateKey,
  );
  return identity;
}

describe("SvcApi", () => {
  it("has one method for every JSON route of the prekey server but the observer's", () => {
    const api = apiOn("http://127.0.0.1:1");
    for (const name of API_ROUTES) expect(typeof api[name], name).toBe("function");
    const others = Object.keys(ROUTES).filter((name) => !(API_ROUTES as string[]).includes(name));
    expect(Object.keys(ROUTES).filter((name) => !(name in api))).toEqual(others);
  });

  it("gets answers from the live server that validate against every route's schema", async () => {
    // A push endpoint on this machine: accepted only with private endpoints allowed.
    const server = await startTestServer({ SVC_PUSH_ALLOW_PRIVATE_ENDPOINTS: "on" });
    const answers = new Map<ApiRouteName, unknown>();
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const route = routeOf(init?.method ?? "GET", String(input));
      if (route && response.ok) answers.set(route, await response.clone().json());
      return response;
    };
    const api = apiOn(server.url, { fetch: recording });
    const alice = await registered(api, "alice@example.com:1");
    const key = alice.signingPrivateKey;

    await api.health();
    await api.healthz();
    await api.ready();
    await api.ktLogId();
    await api.keysCount("alice@example.com:1");
    await api.keysBundle("alice@example.com:1");
    await api.keysReplenish(
      {
        address: "alice@example.com:1",
        oneTimePreKeys: [{ keyId: 3, publicKey: encodeBase64(createOneTimePreKey(3).publicKey) }],
      },
      key,
    );
    const sth = await api.ktSth();
    await api.ktSthAt(1);
    await api.ktVrf("alice:1");
    await api.ktConsistency({ from: 1, to: sth.treeSize });
    await api.ktLeaves({ start: 0 });
    const list = firstDeviceList(
      { address: "alice@example.com:1", identitySigningKey: alice.identitySigningKey },
      key,
    );
    expect(await api.devicesWrite("alice@example.com", deviceListToJson(list))).toEqual({
      ok: true,
      version: 1,
    });
    expect(await api.devicesGet("alice@example.com")).toMatchObject(deviceListToJson(list));
    expect(await api.devicesVersion("alice@example.com", 1)).toEqual(deviceListToJson(list));
    const bytes = Uint8Array.of(2, 1, 2, 3, 4);
    const sender = ed25519KeyPairFromSeed(new Uint8Array(32).fill(9));
    await api.inboxDeposit(
      "alice@example.com:1",
      {
        msgId: msgIdOf(bytes),
        ciphertext: encodeBase64(bytes),
        expiresAt: Date.now() + 3_600_000,
        senderPublicKey: encodeBase64(sender.publicKey),
        from: "bob@example.com:1",
      },
      new Uint8Array(32).fill(9),
    );
    const more = Uint8Array.of(2, 5, 6, 7, 8);
    const batch = await api.inboxDepositBatch(
      [1, 2].map(() => ({
        address: "alice@example.com:1",
        fields: {
          msgId: msgIdOf(more),
          ciphertext: encodeBase64(more),
          expiresAt: Date.now() + 3_600_000,
          senderPublicKey: encodeBase64(sender.publicKey),
        },
      })),
      new Uint8Array(32).fill(9),
    );
    expect(batch.results.map((result) => result.status)).toEqual([200, 200]);
    const page = await api.inboxFetch("alice@example.com:1", { limit: 10 }, key);
    expect(page.items.map((item) => item.msgId)).toEqual([msgIdOf(bytes), msgIdOf(more)]);
    const poll = await api.bridgePoll({ address: "alice@example.com:1", timeoutMs: 0 }, key);
    expect(poll.envelopes[0]).toMatchObject({ from: "bob@example.com:1", msgId: msgIdOf(bytes) });
    await api.inboxAck("alice@example.com:1", msgIdOf(bytes), key);
    await api.inboxAck("alice@example.com:1", msgIdOf(more), key);
    const { publicKey } = await api.pushVapid();
    const endpoint = "http://127.0.0.1:9/push/alice";
    await api.pushSubscribe(
      { address: "alice@example.com:1", subscription: { endpoint, keys: RFC8291_KEYS } },
      key,
    );
    expect(await api.pushUnsubscribe({ address: "alice@example.com:1", endpoint }, key)).toEqual({
      ok: true,
      removed: true,
    });
    expect(publicKey).toMatch(/^[A-Za-z0-9_-]{87}$/);
    await api.inboxUnregister("alice@example.com:1", key);
    await api.keysDelete("alice@example.com:1", key);

    expect([...answers.keys()].sort()).toEqual([...API_ROUTES].sort());
    for (const [name, answer] of answers) {
      expect(v.safeParse(ROUTES[name].response, answer).issues, name).toBeUndefined();
    }
  });

  it("throws every ErrorResponse as SvcError with its code, status and extra members", async () => {
    const server = await startTestServer();
    const api = apiOn(server.url);
    const notFound = await api.keysBundle("nobody:1").catch((error: unknown) => error);
    expect(notFound).toBeInstanceOf(SvcError);
    expect(notFound).toMatchObject({ code: "SVC_NOT_REGISTERED", status: 404 });
    expect((notFound as SvcError).extra.ktProof).toMatchObject({ body: { type: "absence" } });

    await expect(api.keysCount("not an address")).rejects.toMatchObject({
      code: "SVC_INVALID_ADDRESS",
      status: 400,
    });
    const alice = await registered(api, "alice:1");
    const stale = apiOn(server.url, { now: () => Date.now() - 600_000 });
    await expect(stale.inboxFetch("alice:1", {}, alice.signingPrivateKey)).rejects.toMatchObject({
      code: "SVC_STALE_SIGNATURE",
      status: 409,
    });
    await expect(stale.keysDelete("alice:1", alice.signingPrivateKey)).rejects.toMatchObject({
      code: "SVC_STALE_SIGNATURE",
      status: 401,
    });
    await expect(
      api.inboxAck("alice:1", "0".repeat(64), alice.signingPrivateKey),
    ).rejects.toMatchObject({ code: "SVC_BLOB_NOT_FOUND", status: 404 });
  });

  it("honours Retry-After on 429 and succeeds after the wait", async () => {
    // 60 a minute refills one token a second: Retry-After is 1 s once the burst is spent.
    const server = await startTestServer({ SVC_RATE_BUNDLE_PER_IP: "60" });
    const impatient = apiOn(server.url, { maxRetries: 0 });
    let refusal: unknown;
    for (let i = 0; i < 200 && refusal === undefined; i++) {
      await impatient.keysBundle(`nobody:${i}`).catch((error: unknown) => {
        if ((error as SvcError).status === 429) refusal = error;
      });
    }
    expect(refusal).toMatchObject({ code: "SVC_RATE_LIMITED", status: 429, retryAfterSeconds: 1 });

    // The patient client spends tokens until one of its calls is refused: that call must wait
    // Retry-After, retry, and get the server's real answer.
    const statuses: number[] = [];
    const watching: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      statuses.push(response.status);
      return response;
    };
    const patient = apiOn(server.url, { maxRetries: 2, fetch: watching });
    let waited = 0;
    for (let i = 0; i < 200 && !statuses.includes(429); i++) {
      statuses.length = 0;
      const started = Date.now();
      await expect(patient.keysBundle(`nobody:${i}`)).rejects.toMatchObject({
        code: "SVC_NOT_REGISTERED",
      });
      waited = Date.now() - started;
    }
    expect(statuses).toEqual([429, 404]);
    expect(waited).toBeGreaterThanOrEqual(990);
    expect(waited).toBeLessThan(2500);
  });

  it("refuses answers that are not the protocol's as BAD_RESPONSE, and unreachable servers as NETWORK", async () => {
    const answering = (status: number, body: string) =>
      apiOn("http://svc.test", {
        fetch: async () =>
          new Response(body, { status, headers: { "content-type": "application/json" } }),
      });
    await expect(answering(200, '{"count":-1}').keysCount("a:1")).rejects.toMatchObject({
      code: "BAD_RESPONSE",
    });
    await expect(answering(502, "<html>bad gateway</html>").health()).rejects.toMatchObject({
      code: "BAD_RESPONSE",
    });
    const unreachable = apiOn("http://127.0.0.1:1");
    const error = await unreachable.health().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({ code: "NETWORK" });
  });

  it("fails with TIMEOUT when the server accepts the request and never answers", async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const api = apiOn(`http://127.0.0.1:${port}`, { requestTimeoutMs: 200 });
      const started = performance.now();
      await expect(api.health()).rejects.toMatchObject({ name: "ClientError", code: "TIMEOUT" });
      expect(performance.now() - started).toBeLessThan(5000);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
