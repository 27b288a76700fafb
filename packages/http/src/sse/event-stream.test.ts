import { createServer, get, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { EventStream } from "./event-stream.js";
import { PingTicker } from "./pings.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** An EventStream on a real connection, and what its client has received so far. */
async function openEventStream() {
  let res: ServerResponse | undefined;
  const server = createServer((_req, response) => {
    res = response;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  let received = "";
  const request = get(`http://127.0.0.1:${port}/`, (incoming) => {
    incoming.setEncoding("utf8");
    incoming.on("data", (chunk: string) => {
      received += chunk;
    });
  });
  request.on("error", () => {});
  cleanups.push(() => {
    request.destroy();
    server.closeAllConnections();
    server.close();
  });
  while (!res) await new Promise((resolve) => setTimeout(resolve, 1));
  const stream = new EventStream(res, new PingTicker(), "request-1", () => {});
  cleanups.push(() => stream.end());
  return { res, stream, received: () => received };
}

describe("EventStream", () => {
  it("hands each event to the kernel at once, not on the next tick", async () => {
    const { res, stream, received } = await openEventStream();
    stream.event("envelope", { receivedAt: 7 }, 7);
    expect(res.socket?.writableCorked).toBe(0);
    expect(stream.unsentBytes()).toBe(0);
    const deadline = Date.now() + 2000;
    while (!received().includes("\n\n") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(received()).toBe('id: 7\nevent: envelope\ndata: {"receivedAt":7}\n\n');
  });
});
