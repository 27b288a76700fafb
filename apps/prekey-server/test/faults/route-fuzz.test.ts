import { connect } from "node:net";
import type { Storage } from "@svc/db";
import { createTestStorage } from "@svc/db/testing";
import { migrations } from "@svc/server-schema";
import { InboxClient, jsonRequest, party, registerBody, testIdentity } from "@svc/test-client";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type RunningServer, startServer } from "../../src/server.js";
import { testConfig } from "../../src/test-support/app.js";
import { expectContract } from "../../src/test-support/contract.js";

/**
 * Every operation of the OpenAPI document the server serves, fuzzed over HTTP with hostile path
 * parameters, query strings, headers and bodies (oversized ones included): never a 5xx, never a
 * hang, and the server is still there afterwards. Per-route fuzzers with validly signed bodies
 * sit beside the routes (keys/fuzz, inbox/fuzz, bridge/query); this one is about breadth.
 */

const TOKEN = "fuzz-observer-token-0123";
const KNOWN = "fuzz-known:1";
const METHODS = ["get", "post", "put", "delete", "patch"] as const;
/** Each request gets this long; longer is a hang. */
const ANSWER_WITHIN_MS = 5000;
const RUNS_PER_OPERATION = 60;

interface Operation {
  method: string;
  template: string;
  tags: string[];
  queryNames: string[];
}

let storage: Storage;
let server: RunningServer;
let operations: Operation[];

beforeAll(async () => {
  storage = await createTestStorage({ migrations });
  server = await startServer(
    testConfig({ SVC_OBSERVER_TOKEN: TOKEN, SVC_INBOX_MAX_BLOB_BYTES: "65536" }),
    { storage },
  );
  const served = await fetch(`${server.url}/openapi.yaml`);
  operations = operationsOf(parse(await served.text()) as Record<string, unknown>);
  // Something to find: an address registered for keys and inbox.
  const keys = await fetch(
    `${server.url}/v1/keys/register`,
    jsonRequest("POST", registerBody(testIdentity(KNOWN), Date.now(), [1, 2, 3])),
  );
  expect(keys.status).toBe(200);
  const inbox = new InboxClient((path, init) => fetch(`${server.url}${path}`, init), Date.now);
  expect((await inbox.register(KNOWN, party("fuzz-known"))).status).toBe(200);
});
afterAll(async () => {
  await server?.stop();
  await storage?.close();
});

/** Strings that have broken parsers somewhere. */
const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "",
    KNOWN,
    "%",
    "%zz",
    "%00",
    "%C0%AF",
    "%ED%A0%80",
    "%FF%FE",
    "..%2F..%2Fetc%2Fpasswd",
    "a".repeat(300),
    "a".repeat(20_000),
    "-1",
    "1e309",
    "18446744073709551616",
    "9007199254740993",
    "0x10",
    "null",
    "[]",
    "{}",
    "' OR 1=1 --",
    "\u0000",
    "\uD800",
    "🙂:1",
    "a,b",
    "alice:1,bob:1",
  ),
);

const jsonish = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value) ?? "null"),
  fc.string({ maxLength: 200 }),
  fc.constantFrom(
    "",
    "{",
    '{"a":',
    `${"[".repeat(5000)}${"]".repeat(5000)}`,
    `{"signature":"${"A".repeat(88)}","signedAt":1e400}`,
    '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}',
    '{"a":1,"a":2}',
    "\uFEFF{}",
    "\u0000",
  ),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString("latin1")),
);

const headerValue = fc.oneof(
  fc.string({ maxLength: 60 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
  fc.constantFrom("", "application/json", "text/plain", "application/json; charset=latin1"),
  fc.constantFrom(
    "multipart/form-data; boundary=x",
    "a".repeat(8000),
    "Bearer ",
    `Bearer ${TOKEN}x`,
  ),
);
const headers = fc.dictionary(
  fc.constantFrom(
    "content-type",
    "authorization",
    "x-request-id",
    "last-event-id",
    "x-forwarded-for",
    "accept",
    "accept-encoding",
    "cookie",
    "x-svc-lane-id",
    "x-svc-seq",
    "if-none-match",
  ),
  headerValue,
  { maxKeys: 4 },
);

describe("every route of the served OpenAPI document under hostile input", () => {
  it("documents the routes this fuzzer walks", () => {
    expect(operations.length).toBeGreaterThanOrEqual(31);
  });

  // One case per operation, so that a failure names the route.
  it.each([
    "get /health",
    "get /healthz",
    "get /ready",
    "get /metrics",
    "get /openapi.yaml",
    "get /svc-observer",
    "get /svc-observer/api/state",
    "get /svc-observer/api/events",
    "post /v1/keys/register",
    "get /v1/keys/bundle/{address}",
    "get /v1/keys/count/{address}",
    "post /v1/keys/replenish",
    "delete /v1/keys/{address}",
    "get /v1/kt/log_id",
    "get /v1/kt/sth",
    "get /v1/kt/sth/{treeSize}",
    "get /v1/kt/consistency",
    "get /v1/kt/leaves",
    "post /v1/inbox/register",
    "delete /v1/inbox/register/{address}",
    "post /v1/inbox/{address}",
    "post /v1/inbox/{address}/fetch",
    "delete /v1/inbox/{address}/{msgId}",
    "get /v1/bridge/stream",
    "get /v1/bridge/poll",
    "get /v1/bridge/ws",
    "get /v1/bridge/presence",
    "get /v1/transfer/health",
    "post /v1/transfer/{streamId}/chunk",
    "get /v1/transfer/{streamId}/state",
    "post /v1/transfer/control",
  ])(
    "%s",
    async (name) => {
      const operation = operations.find((o) => `${o.method} ${o.template}` === name);
      if (operation === undefined) throw new Error(`${name} is not in the served document`);
      const params = fc.array(nasty, { minLength: 4, maxLength: 4 });
      const query = fc.array(
        fc.tuple(fc.oneof(fc.constantFrom(...operation.queryNames, "x"), nasty), nasty),
        { maxLength: 6 },
      );
      const body = fc.option(jsonish, { nil: undefined });
      await fc.assert(
        fc.asyncProperty(params, query, headers, body, async (values, pairs, sent, text) => {
          const path = fillTemplate(operation.template, values);
          const search = pairs.map(([k, v]) => `${encodeLoosely(k)}=${encodeLoosely(v)}`).join("&");
          await expectNoFailure(operation, `${path}${search ? `?${search}` : ""}`, {
            method: operation.method.toUpperCase(),
            headers: sent,
            body: operation.method === "get" ? undefined : text,
          });
        }),
        { numRuns: RUNS_PER_OPERATION },
      );
      // Oversized: 3 MiB, over every route's body limit, declared and undeclared (chunked).
      if (operation.method !== "get") {
        const big = `{"ciphertext":"${"A".repeat(3 * 1024 * 1024)}"}`;
        const path = fillTemplate(operation.template, [KNOWN, KNOWN, KNOWN, KNOWN]);
        const init = {
          method: operation.method.toUpperCase(),
          headers: { "content-type": "application/json" },
        };
        const declared = await expectNoFailure(operation, path, { ...init, body: big });
        const chunked = await expectNoFailure(operation, path, {
          ...init,
          body: new Blob([big]).stream(),
          duplex: "half",
        } as RequestInit);
        if (!operation.tags.includes("transfer")) {
          expect([declared, chunked]).toEqual([413, 413]);
        }
      }
    },
    60_000,
  );

  it("answers hostile raw requests below the application with a 4xx or a close, never a 5xx", async () => {
    const { hostname, port } = new URL(server.url);
    const long = "a".repeat(70_000);
    const raw = [
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${long}\r\n\r\n`,
      `GET /health HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 3000 }, (_, i) => `X-${i}: 1\r\n`).join("")}\r\n`,
      "POST /v1/inbox/register HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
      "POST /v1/inbox/register HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n",
      "POST /v1/inbox/register HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
      "POST /v1/inbox/register HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n{}",
      "POST /v1/inbox/register HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n{}",
      "GET /v1/keys/bundle/%00%ff HTTP/1.1\r\nHost: x\r\n\r\n",
      "GET http://evil.example/v1/kt/sth HTTP/1.1\r\nHost: x\r\n\r\n",
      "GET /v1/kt/sth HTTP/9.9\r\nHost: x\r\n\r\n",
      "BREW /v1/kt/sth HTTP/1.1\r\nHost: x\r\n\r\n",
      "GET /v1/kt/sth\r\n\r\n",
      "GET /v1/bridge/ws?address=%zz HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: x\r\nSec-WebSocket-Version: 13\r\n\r\n",
      "GET /v1/bridge/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: x\r\nX-Bad\u0001: y\r\n\r\n",
      "\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u01fc\u0003\u0003", // a TLS ClientHello
    ];
    for (const request of raw) {
      const answer = await rawExchange(hostname, Number(port), request);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer.text)?.[1] ?? 0);
      expect({ request: request.slice(0, 60), closedOrAnswered: answer.ended }).toEqual({
        request: request.slice(0, 60),
        closedOrAnswered: true,
      });
      if (status !== 0) expect(status).toBeLessThan(500);
    }
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
  });
});

/** Sends one request; the status, or 0 when the server closed without answering. */
async function expectNoFailure(
  operation: Operation,
  path: string,
  init: RequestInit,
): Promise<number> {
  const send = () =>
    fetch(`${server.url}${path}`, {
      ...init,
      // A redirect (GET /svc-observer) is the answer under test, not the page it points to.
      redirect: "manual",
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    });
  let res: Response;
  try {
    res = await send().catch((error: unknown) => {
      // A pooled connection that the server closed after refusing an oversized body as the next
      // request went out on it: a client sends again on a new one (a server that crashed fails
      // again).
      const replayable = init.body === undefined || typeof init.body === "string";
      if (replayable && isClosedConnection(error)) return send();
      throw error;
    });
  } catch (error) {
    // A URL or header that fetch itself refuses never reaches the server.
    if (error instanceof TypeError && !/fetch failed/.test(error.message)) return 0;
    throw new Error(
      `${init.method} ${path.slice(0, 120)}: ${String((error as Error).cause ?? error)}`,
    );
  }
  if (res.status >= 500) {
    throw new Error(
      `${init.method} ${path.slice(0, 120)} answered ${res.status}: ${await res.text()}`,
    );
  }
  if (res.status === 431) {
    // node:http refuses a request head over 16 KiB itself, before the app sees it.
    await res.body?.cancel();
  } else if (operation.tags.includes("transfer")) {
    // Served by the receiver-side peer: the prekey server has no such route.
    expect(res.status).toBe(404);
    await res.body?.cancel();
  } else if (res.headers.get("content-type")?.startsWith("text/event-stream")) {
    await res.body?.cancel();
  } else {
    await expectContract(res, init.method ?? "GET", path);
  }
  return res.status;
}

function isClosedConnection(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  return ["UND_ERR_SOCKET", "UND_ERR_CLOSED", "ECONNRESET"].includes(cause?.code ?? "");
}

function operationsOf(document: Record<string, unknown>): Operation[] {
  const paths = document.paths as Record<string, Record<string, Record<string, unknown>>>;
  return Object.entries(paths).flatMap(([template, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map((method) => {
      const operation = item[method] as {
        tags?: string[];
        parameters?: Array<{ in?: string; name?: string }>;
      };
      return {
        method,
        template,
        tags: operation.tags ?? [],
        queryNames: (operation.parameters ?? [])
          .filter((p) => p.in === "query" && typeof p.name === "string")
          .map((p) => p.name as string),
      };
    }),
  );
}

/** The template with each `{param}` replaced by the next value, percent-encoded loosely. */
function fillTemplate(template: string, values: string[]): string {
  let i = 0;
  return template.replace(/\{[^}]+\}/g, () => {
    const segment = encodeLoosely(values[i++] ?? "x") || "x";
    // A dot segment ("." or "..", "%2e" included) is resolved away by the URL parser before
    // the request leaves: the server would see another path, whose 404 is right but not this
    // route's contract.
    return /^(\.|%2e){1,2}$/i.test(segment) ? `x${segment}` : segment;
  });
}

/** Percent-encodes what a URL cannot carry, but keeps `%` sequences as given (broken ones too). */
function encodeLoosely(value: string): string {
  return Array.from(value)
    .map((char) => {
      if (/^[A-Za-z0-9%:@._~!$&'()*+,;=-]$/.test(char)) return char;
      try {
        return encodeURIComponent(char);
      } catch {
        return "%EF%BF%BD"; // a lone surrogate
      }
    })
    .join("");
}

/** Writes `request` on a new connection; what came back, and whether the exchange ended in 3 s. */
function rawExchange(
  host: string,
  port: number,
  request: string,
): Promise<{ text: string; ended: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    let text = "";
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, ended: /^HTTP\/1\.[01] \d{3}/.test(text) });
    }, 3000);
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      // A whole response head: answered (a keep-alive connection would stay open).
      if (/^HTTP\/1\.[01] \d{3}[\s\S]*\r\n\r\n/.test(text)) socket.destroy();
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ text, ended: true });
    });
    socket.write(request, "latin1");
  });
}
