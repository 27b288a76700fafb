import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { createLogger } from "@svc/node-kit";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { readBody, readExactly } from "./body.js";
import { errorResponder } from "./errors.js";

const LIMIT = 1000;

/** A route answering with the body it read, given `incoming` as @hono/node-server gives it. */
async function post(incoming: Readable, contentLength?: number): Promise<Response> {
  const app = new Hono();
  app.post("/", async (c) => c.body(new Uint8Array(await readBody(c, LIMIT))));
  app.onError(errorResponder(createLogger("silent")));
  const headers: Record<string, string> =
    contentLength === undefined ? {} : { "content-length": String(contentLength) };
  return app.request("/", { method: "POST", headers }, { incoming });
}

/** A body of `pieces`, counting how many of them were handed out. */
function countedBody(pieces: Buffer[]): { body: Readable; pulled: () => number } {
  let pulled = 0;
  const body = new Readable({
    read() {
      const piece = pieces[pulled];
      pulled++;
      this.push(piece ?? null);
    },
  });
  return { body, pulled: () => pulled };
}

describe("readBody from the node request", () => {
  it("reads a body of exactly Content-Length bytes into one buffer", async () => {
    const content = randomBytes(LIMIT);
    const pieces = [content.subarray(0, 300), content.subarray(300, 301), content.subarray(301)];
    const response = await post(Readable.from(pieces), content.length);
    expect(response.status).toBe(200);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(new Uint8Array(content));
  });

  it("refuses a Content-Length over the limit with 413 without reading a byte", async () => {
    const { body, pulled } = countedBody([randomBytes(LIMIT + 1)]);
    expect((await post(body, LIMIT + 1)).status).toBe(413);
    expect(pulled()).toBe(0);
    expect(body.readableDidRead).toBe(false);
  });

  it("answers 400 when the body ends before its Content-Length, or runs past it", async () => {
    expect((await post(Readable.from([randomBytes(10)]), 11)).status).toBe(400);
    expect((await post(Readable.from([randomBytes(12)]), 11)).status).toBe(400);
    const gone = Readable.from([randomBytes(10)]);
    gone.destroy();
    expect((await post(gone, 10)).status).toBe(400);
  });

  it("without Content-Length reads up to the limit and stops at the piece that passes it", async () => {
    const content = randomBytes(LIMIT);
    const fits = await post(Readable.from([content.subarray(0, 500), content.subarray(500)]));
    expect(new Uint8Array(await fits.arrayBuffer())).toEqual(new Uint8Array(content));
    // Pieces past the stream's read-ahead (16 KiB), so that each one is pulled when wanted.
    const { body, pulled } = countedBody(Array.from({ length: 10 }, () => randomBytes(20_000)));
    expect((await post(body)).status).toBe(413);
    expect(pulled()).toBeLessThan(4);
  });
});

describe("readExactly", () => {
  it("fills the given buffer and returns it", async () => {
    const into = new Uint8Array(4);
    const read = await readExactly(Readable.from([Buffer.from([1, 2]), Buffer.from([3, 4])]), into);
    expect(read).toBe(into);
    expect([...into]).toEqual([1, 2, 3, 4]);
  });
});
