import { request } from "node:http";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { bindPort, listen } from "./serve.js";

/** A GET on a connection of its own: status, Connection header and body, or the error. */
function get(url: string): Promise<{ status: number; connection?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

describe("listen", () => {
  it("answers the requests in flight before stop closes the connections", async () => {
    let started = () => {};
    const arrived = new Promise<void>((resolve) => {
      started = resolve;
    });
    const server = await listen(
      async () => {
        started();
        await new Promise((resolve) => setTimeout(resolve, 300));
        return new Response("done");
      },
      "127.0.0.1",
      0,
    );
    const answer = get(`${server.url}/slow`);
    await arrived;
    const order: string[] = [];
    const stopped = server.stop(async () => {
      order.push("beforeClose");
    });
    const res = await answer;
    order.push("answered");
    await stopped;
    order.push("stopped");
    expect(res).toEqual({ status: 200, connection: "close", body: "done" });
    expect(order).toEqual(["beforeClose", "answered", "stopped"]);
  });

  it("gives up on requests in flight after drainMs", async () => {
    const server = await listen(() => new Promise<Response>(() => {}), "127.0.0.1", 0, {
      drainMs: 200,
    });
    const answer = get(`${server.url}/never`).catch((error: Error) => error.message);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    await server.stop();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await answer).toMatch(/socket hang up|ECONNRESET/);
  });

  it("closes a connection whose request head does not arrive within headersTimeoutMs", async () => {
    const server = await listen(() => new Response("ok"), "127.0.0.1", 0, {
      headersTimeoutMs: 1000,
    });
    const { port } = new URL(server.url);
    const socket = connect(Number(port), "127.0.0.1");
    let received = "";
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
    });
    const opened = performance.now();
    socket.write("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ");
    await new Promise((resolve) => socket.once("close", resolve));
    const closedAfter = performance.now() - opened;
    await server.stop();
    expect(received).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfter).toBeGreaterThanOrEqual(900);
    expect(closedAfter).toBeLessThan(2500);
  });
});

describe("bindPort", () => {
  it("refuses a port in use with EADDRINUSE, naming the port and its setting", async () => {
    const taken = await listen(() => new Response("first"), "127.0.0.1", 0);
    const refusal = await bindPort("127.0.0.1", taken.port, {
      settings: { port: "--port or SVC_TRANSFER_PORT", host: "SVC_TRANSFER_HOST" },
    }).catch((error: NodeJS.ErrnoException) => error);
    await taken.stop();
    expect(refusal).toMatchObject({
      code: "EADDRINUSE",
      message: `port ${taken.port} is in use (set --port or SVC_TRANSFER_PORT)`,
    });
  });

  it("names the host's setting for an address that is not this machine's", async () => {
    const refusal = await bindPort("192.0.2.1", 0, {
      settings: { port: "SVC_PORT", host: "SVC_HOST" },
    }).catch((error: NodeJS.ErrnoException) => error);
    expect(refusal).toMatchObject({
      code: "EADDRNOTAVAIL",
      message: "cannot listen on 192.0.2.1: not an address of this machine (set SVC_HOST)",
    });
  });

  it("holds the requests that come before serve, then answers them with the app", async () => {
    const bound = await bindPort("127.0.0.1", 0);
    const answer = get(`${bound.url}/early`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const server = bound.serve((request) => new Response(new URL(request.url).pathname));
    expect(await answer).toMatchObject({ status: 200, body: "/early" });
    await server.stop();
  });

  it("gives the port back on close, for a start that failed after the bind", async () => {
    const bound = await bindPort("127.0.0.1", 0);
    await bound.close();
    const again = await listen(() => new Response("ok"), "127.0.0.1", bound.port);
    expect((await get(again.url)).body).toBe("ok");
    await again.stop();
  });
});
