import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { listen } from "@svc/http";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Closer, closeAll, tempDir } from "../test-support/directory.js";
import {
  countingCipher,
  type Peers,
  STORE_KINDS,
  startFor,
  startPeers,
} from "../test-support/receiver-harness.js";
import {
  chunkRequest,
  controlRequest,
  ORIGIN,
  sealFile,
  stateRequest,
} from "../test-support/signed-requests.js";
import { mountTransferReceiver } from "./mount.js";

const closers: Closer[] = [];
let peers: Peers;
let url: string;
let dir: string;
const cipher = countingCipher();

beforeAll(async () => {
  peers = await startPeers(closers);
  const openStore = await STORE_KINDS[0]?.open(closers);
  dir = await tempDir(closers, "svc-received-");
  const app = new Hono();
  mountTransferReceiver(app, {
    client: peers.receiver,
    store: (openStore as NonNullable<typeof openStore>)(),
    dir,
    cipher,
    maxChunkBytes: 53 + 64 * 1024,
  });
  const server = await listen(app.fetch, "127.0.0.1", 0);
  closers.push(() => server.stop());
  url = server.url;
});
afterAll(() => closeAll(closers));

/** The in-process request, sent over HTTP to the listening receiver. */
async function overHttp(
  request: Request | Promise<Request>,
  body?: ReadableStream<Uint8Array>,
): Promise<Response> {
  const built = await request;
  return fetch(built.url.replace(ORIGIN, url), {
    method: built.method,
    headers: built.headers,
    body: body ?? (built.method === "GET" ? undefined : await built.arrayBuffer()),
    ...(body ? { duplex: "half" } : {}),
  } as RequestInit);
}

describe("the receiver over HTTP", () => {
  it("answers health, takes a file in 64 KiB chunks, and refuses oversized bodies with 413", async () => {
    expect(await (await fetch(`${url}/v1/transfer/health`)).json()).toEqual({
      ok: true,
      address: peers.receiverAddress,
      versions: [1, 2],
    });
    const content = randomBytes(5 * 64 * 1024 + 1);
    const { start, key } = startFor(content, { lanes: 2, chunkBytes: 64 * 1024 });
    const { streamId } = start;
    const sender = peers.sender;
    const started = await overHttp(
      controlRequest(sender.client, sender.address, peers.receiverAddress, start),
    );
    expect(started.status).toBe(200);
    const sealed = sealFile(content, { ...start, key });

    const first = sealed.lanes[0]?.[0] as Uint8Array;
    const oversized = new Uint8Array(first.length + 1);
    oversized.set(first);
    const tooLarge = chunkRequest(sender, { streamId, laneId: 0, seq: 1n, envelope: oversized });
    expect((await overHttp(tooLarge)).status).toBe(413);
    // Chunked transfer encoding: no Content-Length, so the limit is judged while reading.
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 3; i++)
          controller.enqueue(oversized.subarray(i * 30_000, (i + 1) * 30_000));
        controller.close();
      },
    });
    const streamed = await chunkRequest(sender, {
      streamId,
      laneId: 0,
      seq: 1n,
      envelope: oversized,
    });
    streamed.headers.delete("content-length");
    expect((await overHttp(streamed, chunked)).status).toBe(413);
    expect(cipher.opened).toBe(0);

    await Promise.all(
      sealed.lanes.map(async (lane, laneId) => {
        for (const [index, envelope] of lane.entries()) {
          const seq = BigInt(index + 1);
          const response = await overHttp(
            chunkRequest(sender, { streamId, laneId, seq, envelope }),
          );
          expect(await response.json()).toEqual({ ok: true, lastSeqAcked: String(seq) });
        }
      }),
    );
    const state = await overHttp(stateRequest(sender, streamId));
    expect(await state.json()).toMatchObject({ status: "active" });
    const finish = controlRequest(sender.client, sender.address, peers.receiverAddress, {
      type: "finish",
      streamId,
    });
    expect((await overHttp(finish)).status).toBe(200);
    expect(await readFile(join(dir, "file.bin"))).toEqual(content);
  });
});
