import fc from "fast-check";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { toApiError } from "../app.js";
import { readJsonBody } from "./json-body.js";

function echoApp(limit: number) {
  const app = new Hono();
  app.post("/", async (c) => c.json(await readJsonBody(c, limit)));
  app.onError((error, c) => {
    const apiError = toApiError(error);
    return c.json(apiError.body(), apiError.status);
  });
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
      // @ts-expect-error -- node's fetch needs duplex for stream bodies
      duplex: "half",
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: "SVC_TOO_LARGE" });
    expect(pulled).toBe(false);
  });

  it("refuses a body without Content-Length once it passes the limit", async () => {
    const res = await echoApp(1000).request("/", {
      method: "POST",
      body: streamed(JSON.stringify({ a: "x".repeat(5000) })),
      // @ts-expect-error -- node's fetch needs duplex for stream bodies
      duplex: "half",
    });
    expect(res.status).toBe(413);
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
