import { readFile } from "node:fs/promises";
import { encodeBase64 } from "@svc/canonical";
import type { Storage } from "@svc/db";
import { createTestStorage, until } from "@svc/db/testing";
import { migrations } from "@svc/server-schema";
import {
  bridgeUrl,
  envelope,
  InboxClient,
  jsonRequest,
  type Party,
  party,
  presenceUrl,
  registerBody,
  SseReader,
  testIdentity,
} from "@svc/test-client";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { liveBridges } from "../src/routes/v1/bridge/test-support/running-server.js";
import { type RunningServer, startServer } from "../src/server.js";
import { testConfig } from "../src/test-support/app.js";
import { expectContract } from "../src/test-support/contract.js";
import { type NginxProxy, nginxSkipReason, SITE_FILE, startNginxProxy } from "./nginx-proxy.js";

const sender = party("nginx-sender");

describe.skipIf(nginxSkipReason() !== undefined)("the server behind nginx (deploy/nginx)", () => {
  let storage: Storage;
  let server: RunningServer;
  let proxy: NginxProxy;
  let inbox: InboxClient;
  const closers: Array<() => void> = [];

  let started: Promise<void>;
  beforeAll(() => {
    started = (async () => {
      storage = await createTestStorage({ migrations });
      const env = { SVC_TRUST_PROXY: "1", SVC_RATE_BUNDLE_PER_IP: "2" };
      server = await startServer(testConfig(env), { storage });
      proxy = await startNginxProxy(server.port);
      inbox = new InboxClient(
        (path, init) => proxy.fetch(`${proxy.httpsUrl}${path}`, init),
        Date.now,
      );
    })();
    started.catch(() => {});
  });
  // Awaited in each test's hook: without nginx, every test fails (beforeAll would skip them).
  beforeEach(() => started);
  afterEach(() => {
    for (const close of closers.splice(0)) close();
  });
  afterAll(async () => {
    await proxy?.stop();
    await server?.stop();
    await storage?.close();
  });

  /** A registered inbox of its own per test, and a depositor of numbered envelopes to it. */
  async function registered(label: string) {
    const address = `${label}@nginx.example:1`;
    const owner = party(label);
    expect((await inbox.register(address, owner)).status).toBe(200);
    const deposit = async (n: number, size?: number) => {
      const res = await inbox.deposit(address, sender, envelope(n, size));
      expect(res.status).toBe(200);
      return encodeBase64(envelope(n, size));
    };
    return { address, owner, deposit };
  }

  async function sse(url: string) {
    const controller = new AbortController();
    closers.push(() => controller.abort());
    const res = await proxy.fetch(url, { signal: controller.signal });
    expect(res.status).toBe(200);
    await expectContract(res, "GET", new URL(url).pathname);
    return { reader: new SseReader(res), close: () => controller.abort() };
  }

  async function wsBridge(address: string, owner: Party) {
    const url = bridgeUrl(proxy.httpsUrl, "ws", owner, address).replace(/^https/, "wss");
    const socket = new WebSocket(url, { ca: proxy.ca });
    closers.push(() => socket.terminate());
    const frames: Array<{ bytes: string }> = [];
    socket.on("message", (data) => frames.push(JSON.parse(String(data))));
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    return { socket, frames };
  }

  it("answers over HTTPS, redirects plain HTTP there and keeps /metrics off the public site", async () => {
    const health = await proxy.fetch(`${proxy.httpsUrl}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok" });
    const plain = await fetch(`${proxy.httpUrl}/health`, { redirect: "manual" });
    expect(plain.status).toBe(301);
    expect(plain.headers.get("location")).toBe("https://127.0.0.1/health");
    expect((await proxy.fetch(`${proxy.httpsUrl}/metrics`)).status).toBe(404);
  });

  it("holds each read longer than the longest long-poll (55 s)", async () => {
    const site = await readFile(SITE_FILE, "utf8");
    expect(site).toMatch(/^\s*proxy_buffering off;$/m);
    const timeout = /^\s*proxy_read_timeout (\d+)s;$/m.exec(site)?.[1];
    expect(Number(timeout)).toBeGreaterThanOrEqual(120);
  });

  it("SSE: replays the backlog, then delivers each deposit as it happens", async () => {
    const { address, owner, deposit } = await registered("sse");
    const first = await deposit(1);
    const { reader } = await sse(bridgeUrl(proxy.httpsUrl, "stream", owner, address));
    await until(() => reader.events.length === 1);
    const second = await deposit(2);
    await until(() => reader.events.length === 2);
    expect(reader.data<{ bytes: string }>("envelope").map((e) => e.bytes)).toEqual([first, second]);
    expect(await liveBridges(server, "sse")).toBe(1);
  });

  it("long-poll: holds the request until a deposit arrives, or answers empty after timeoutMs", async () => {
    const { address, owner, deposit } = await registered("poll");
    const poll = async (timeoutMs: string) => {
      const url = bridgeUrl(proxy.httpsUrl, "poll", owner, address, { extra: { timeoutMs } });
      const res = await proxy.fetch(url);
      expect(res.status).toBe(200);
      return (await expectContract(res, "GET", "/v1/bridge/poll")) as {
        envelopes: Array<{ bytes: string }>;
      };
    };
    const started = Date.now();
    const held = poll("25000");
    await new Promise((resolve) => setTimeout(resolve, 500));
    const bytes = await deposit(7);
    expect((await held).envelopes.map((e) => e.bytes)).toEqual([bytes]);
    expect(Date.now() - started).toBeLessThan(5000);

    const { address: quiet, owner: quietOwner } = await registered("poll-quiet");
    const url = bridgeUrl(proxy.httpsUrl, "poll", quietOwner, quiet, {
      extra: { timeoutMs: "1500" },
    });
    const emptyStarted = Date.now();
    const empty = await proxy.fetch(url);
    expect(await empty.json()).toEqual({ envelopes: [] });
    expect(Date.now() - emptyStarted).toBeGreaterThanOrEqual(1500);
  });

  it("WebSocket: upgrades through the proxy and sends one frame per envelope", async () => {
    const { address, owner, deposit } = await registered("ws");
    const first = await deposit(1);
    const { socket, frames } = await wsBridge(address, owner);
    await until(() => frames.length === 1);
    const second = await deposit(2);
    await until(() => frames.length === 2);
    expect(frames.map((frame) => frame.bytes)).toEqual([first, second]);
    expect(await liveBridges(server, "ws")).toBe(1);
    socket.close();
    await until(async () => (await liveBridges(server, "ws")) === 0);
  });

  it("presence: reports a watched address going online and offline, also when its client drops", async () => {
    const watcher = await registered("watcher");
    const bob = await registered("bob");
    const { reader } = await sse(
      presenceUrl(proxy.httpsUrl, watcher.owner, watcher.address, [bob.address]),
    );
    await until(() => reader.events.length === 1);
    expect(reader.data("presence")).toMatchObject([{ address: bob.address, online: false }]);
    const { socket } = await wsBridge(bob.address, bob.owner);
    await until(() => reader.events.length === 2);
    // Gone without a close frame: nginx closes its connection to the server, which notices.
    socket.terminate();
    await until(() => reader.events.length === 3, 10_000);
    expect(reader.events.slice(1).map((e) => [e.event, JSON.parse(e.data).address])).toEqual([
      ["inbox.peer_connected", bob.address],
      ["inbox.peer_disconnected", bob.address],
    ]);
  });

  it("accepts a deposit of the largest default ciphertext (1 MiB)", async () => {
    const { deposit } = await registered("large");
    await deposit(1, 1024 * 1024);
  });

  it("rate-limits each client IP on its own, by the address nginx puts in X-Forwarded-For", async () => {
    const alice = testIdentity("alice@nginx.example:1");
    const register = await proxy.fetch(
      `${proxy.httpsUrl}/v1/keys/register`,
      jsonRequest("POST", registerBody(alice, Date.now())),
      "127.0.0.9",
    );
    expect(register.status).toBe(200);
    const bundle = (from: string, headers: Record<string, string> = {}) =>
      proxy.fetch(`${proxy.httpsUrl}/v1/keys/bundle/${alice.address}`, { headers }, from);

    expect((await bundle("127.0.0.2")).status).toBe(200);
    expect((await bundle("127.0.0.2")).status).toBe(200);
    const limited = await bundle("127.0.0.2");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("30");
    expect(await limited.json()).toMatchObject({ code: "SVC_RATE_LIMITED" });
    // A client's own X-Forwarded-For comes before the entry nginx appends: it changes nothing.
    expect((await bundle("127.0.0.2", { "x-forwarded-for": "198.51.100.7" })).status).toBe(429);
    expect((await bundle("127.0.0.3")).status).toBe(200);
    expect((await bundle("127.0.0.3")).status).toBe(200);
    expect((await bundle("127.0.0.3")).status).toBe(429);
  });
});
