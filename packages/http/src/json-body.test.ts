import { once } from "node:events";
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createLogger } from "@svc/node-kit";
import fc from "fast-check";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorResponder } from "./errors.js";
import { readJsonBody } from "./json-body.js";

function echoApp(limit: number, origin?: string) {
  const app = new Hono();
  app.post("/", async (c) => c.json(await readJsonBody(c, limit, origin)));
  app.onError(errorResponder(createLogger("silent")));
  return app;
}

function streamed(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 100) controller.enqueue(bytes.slice(i, i + 100));
      controller.close();
    },
  });
}

describe("readJsonBody", () => {
  it("returns a JSON object", async () => {
    const res = await echoApp(100).request("/", { method: "POST", body: '{"a":1}' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ a: 1 });
  });

  it("refuses from Content-Length before reading", async () => {
    let pulled = false;
    const body = new ReadableStream(
      {
        pull() {
          pulled = true;
        },
      },
      { highWaterMark: 0 },
    );
    const res = await echoApp(100).request("/", {
      method: "POST",
      body,
      headers: { "content-length": "101" },
      duplex: "half",
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      name: "PayloadTooLarge",
      code: "SVC_TOO_LARGE",
      message: "request body exceeds the 100-byte limit",
    });
    expect(pulled).toBe(false);
  });

  it("refuses a body without Content-Length once it passes the limit", async () => {
    const res = await echoApp(1000).request("/", {
      method: "POST",
      body: streamed(JSON.stringify({ a: "x".repeat(5000) })),
      duplex: "half",
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({
      message: "request body exceeds the 1000-byte limit",
    });
  });

  it("names where a configured limit comes from", async () => {
    const res = await echoApp(10, "SVC_EXAMPLE_LIMIT").request("/", {
      method: "POST",
      body: streamed(JSON.stringify({ a: "x".repeat(50) })),
      duplex: "half",
    });
    expect(await res.json()).toMatchObject({
      code: "SVC_TOO_LARGE",
      message: "request body exceeds the 10-byte limit (SVC_EXAMPLE_LIMIT)",
    });
  });

  it.each([
    ["not json", "{"],
    ["an array", "[1]"],
    ["a string", '"x"'],
    ["null", "null"],
    ["empty", ""],
  ])("answers 400 for %s", async (_, body) => {
    const res = await echoApp(100).request("/", { method: "POST", body });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ name: "BadRequest", code: "SVC_BAD_REQUEST" });
  });

  it("answers 400 for invalid UTF-8", async () => {
    const res = await echoApp(100).request("/", {
      method: "POST",
      body: new Uint8Array([0x7b, 0xff, 0x7d]),
    });
    expect(res.status).toBe(400);
  });

  it("never fails with anything but 200, 400 or 413 on arbitrary bytes", async () => {
    const app = echoApp(64);
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 128 }), async (bytes) => {
        const res = await app.request("/", { method: "POST", body: bytes });
        expect([200, 400, 413]).toContain(res.status);
      }),
      { numRuns: 200 },
    );
  });
});

describe("readJsonBody behind the node server", () => {
  let server: ReturnType<typeof serve>;
  let port: number;
  beforeAll(async () => {
    server = serve({ fetch: echoApp(1000).fetch, port: 0, hostname: "127.0.0.1" });
    await once(server, "listening");
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Sends `chunks` without Content-Length (chunked), on a keep-alive socket. */
  function post(chunks: Array<string | Uint8Array>): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request({ port, host: "127.0.0.1", method: "POST", path: "/" }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      for (const chunk of chunks) req.write(chunk);
      req.end();
    });
  }

  it("reads a streamed body within the limit", async () => {
    const res = await post(['{"a":', '"', "x".repeat(500), '"}']);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ a: "x".repeat(500) });
  });

  it("answers 413 once a streamed body passes the limit, and keeps serving", async () => {
    const res = await post(['{"a":"', "x".repeat(600), "x".repeat(600), '"}']);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ code: "SVC_TOO_LARGE" });
    expect((await post(["{}"])).status).toBe(200);
  });

  it("answers 400 for invalid UTF-8 and for an empty body", async () => {
    expect((await post([Uint8Array.of(0x7b, 0xff, 0x7d)])).status).toBe(400);
    expect((await post([])).status).toBe(400);
  });
});
