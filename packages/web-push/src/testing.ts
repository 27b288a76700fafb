import { createECDH, createPublicKey, type ECDH, randomBytes, verify } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { decrypt } from "http_ece";

/**
 * A local RFC 8030 push service for tests (node:http on 127.0.0.1, a free port). It checks each
 * message's VAPID Authorization with node:crypto and decrypts its body with the independent
 * `http_ece` package (install it beside this package to use this entry), records it, and answers
 * as told per path. It shares no code with the sender it tests.
 */
export interface PushEndpoint {
  /** Its origin, e.g. http://127.0.0.1:40123. */
  url: string;
  /** A new subscription (fresh P-256 key and auth secret) at `path`, as a browser gives it. */
  subscription(path: string): PushSubscriptionJson;
  /** Every request that reached `path`, in order of arrival. */
  messages(path: string): PushMessage[];
  /** How `path` answers from now on (default: 201 to every valid message). */
  answer(path: string, plan: AnswerPlan): void;
  close(): Promise<void>;
}

export interface PushSubscriptionJson {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface PushMessage {
  /** Request headers, names in lower case. */
  headers: Record<string, string>;
  /** The decrypted body; undefined when `error` says why it was not accepted. */
  plaintext?: Uint8Array;
  /** The verified JWT's claims. */
  claims?: { aud?: unknown; exp?: unknown; sub?: unknown };
  /** The `k=` of the Authorization, base64url. */
  vapidKey?: string;
  /** Why the message was refused (answered 400 or 401), if it was. */
  error?: string;
  /** Date.now() when it arrived. */
  receivedAt: number;
  /** The status answered. */
  status?: number;
}

export interface AnswerPlan {
  /** Statuses answered to the next requests, one each; past the list, 201. */
  statuses?: number[];
  /** A Retry-After header sent with every non-2xx status of the list. */
  retryAfter?: string;
  /** Never answer (the request hangs until the sender gives up or close()). */
  hang?: boolean;
  /** Answer 301 with this Location. */
  redirectTo?: string;
}

export interface PushEndpointOptions {
  /** Refuse (401) a message signed by any other VAPID key (base64url). */
  vapidPublicKey?: string;
}

interface Subscriber {
  ecdh: ECDH;
  auth: string;
}

export async function startPushEndpoint(options: PushEndpointOptions = {}): Promise<PushEndpoint> {
  const subscribers = new Map<string, Subscriber>();
  const records = new Map<string, PushMessage[]>();
  const plans = new Map<string, AnswerPlan>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function handle(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const path = new URL(req.url ?? "/", url).pathname;
    const message: PushMessage = { headers: headersOf(req), receivedAt: Date.now() };
    const list = records.get(path) ?? [];
    list.push(message);
    records.set(path, list);
    const plan = plans.get(path) ?? {};
    if (plan.hang) return;
    if (plan.redirectTo !== undefined) {
      message.status = 301;
      res.writeHead(301, { Location: plan.redirectTo }).end();
      return;
    }
    const refusal = check(req, message, body, subscribers.get(path));
    if (refusal !== undefined) {
      message.error = refusal.error;
      message.status = refusal.status;
      res.writeHead(refusal.status).end(refusal.error);
      return;
    }
    const status = plan.statuses?.shift() ?? 201;
    message.status = status;
    const headers: Record<string, string> = {};
    if (plan.retryAfter !== undefined && (status < 200 || status >= 300)) {
      headers["Retry-After"] = plan.retryAfter;
    }
    if (status === 201) headers.Location = `${url}/message/${randomBytes(8).toString("hex")}`;
    res.writeHead(status, headers).end();
  }

  function check(
    req: IncomingMessage,
    message: PushMessage,
    body: Buffer,
    subscriber: Subscriber | undefined,
  ): { status: number; error: string } | undefined {
    if (subscriber === undefined) return { status: 404, error: "no such subscription" };
    if (req.method !== "POST") return { status: 405, error: "only POST" };
    const vapid = verifyVapid(req.headers.authorization, url, options.vapidPublicKey);
    if ("error" in vapid) return { status: 401, error: vapid.error };
    message.claims = vapid.claims;
    message.vapidKey = vapid.key;
    if (req.headers["content-encoding"] !== "aes128gcm") {
      return { status: 400, error: "Content-Encoding must be aes128gcm" };
    }
    if (!/^\d+$/.test(message.headers.ttl ?? "")) {
      return { status: 400, error: "TTL is required" };
    }
    try {
      message.plaintext = new Uint8Array(
        decrypt(body, {
          version: "aes128gcm",
          privateKey: subscriber.ecdh,
          authSecret: subscriber.auth,
        }),
      );
    } catch (error) {
      return { status: 400, error: `cannot decrypt: ${(error as Error).message}` };
    }
    return undefined;
  }

  return {
    url,
    subscription(path) {
      const ecdh = createECDH("prime256v1");
      ecdh.generateKeys();
      const auth = randomBytes(16).toString("base64url");
      subscribers.set(path, { ecdh, auth });
      return {
        endpoint: `${url}${path}`,
        keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth },
      };
    },
    messages: (path) => [...(records.get(path) ?? [])],
    answer(path, plan) {
      plans.set(path, { ...plan, statuses: [...(plan.statuses ?? [])] });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/**
 * RFC 8292: `vapid t=<JWT>, k=<key>`, the JWT ES256 (r||s) by the key `k`, aud this origin, exp
 * in the future and at most 24 hours away, sub (when present) a mailto: or https: URL.
 */
function verifyVapid(
  authorization: string | undefined,
  origin: string,
  expectedKey: string | undefined,
): { claims: { aud?: unknown; exp?: unknown; sub?: unknown }; key: string } | { error: string } {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization ?? "");
  if (!match?.[1] || !match[2]) return { error: "Authorization must be vapid t=…, k=…" };
  const [token, key] = [match[1], match[2]];
  if (expectedKey !== undefined && key !== expectedKey) return { error: "unknown VAPID key" };
  const parts = token.split(".");
  if (parts.length !== 3) return { error: "malformed JWT" };
  const [header, payload, signature] = parts as [string, string, string];
  let claims: { aud?: unknown; exp?: unknown; sub?: unknown };
  try {
    const head = JSON.parse(Buffer.from(header, "base64url").toString("utf8"));
    if (head.alg !== "ES256" || head.typ !== "JWT") return { error: "JWT header must be ES256" };
    claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const point = Buffer.from(key, "base64url");
    const publicKey = createPublicKey({
      key: {
        kty: "EC",
        crv: "P-256",
        x: point.subarray(1, 33).toString("base64url"),
        y: point.subarray(33).toString("base64url"),
      },
      format: "jwk",
    });
    const valid = verify(
      "sha256",
      Buffer.from(`${header}.${payload}`),
      { key: publicKey, dsaEncoding: "ieee-p1363" },
      Buffer.from(signature, "base64url"),
    );
    if (!valid) return { error: "bad JWT signature" };
  } catch {
    return { error: "malformed JWT or key" };
  }
  const nowS = Date.now() / 1000;
  if (claims.aud !== origin) return { error: "JWT aud is not this origin" };
  if (typeof claims.exp !== "number" || claims.exp <= nowS || claims.exp > nowS + 86_400) {
    return { error: "JWT exp must be within 24 hours" };
  }
  if (claims.sub !== undefined && !/^(mailto:|https:)/.test(String(claims.sub))) {
    return { error: "JWT sub must be a mailto: or https: URL" };
  }
  return { claims, key };
}
