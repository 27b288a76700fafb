import { until } from "@svc/db/testing";
import { PingTicker } from "@svc/http";
import { bridgeUrl, party, presenceUrl, SseReader } from "@svc/test-client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type BridgeTestServer, startBridgeTestServer } from "./test-support/ping-server.js";
import { inboxClient } from "./test-support/running-server.js";

const ALICE = "alice:1";
const alice = party("alice");
let server: BridgeTestServer;
const closers: Array<() => void> = [];

beforeEach(async () => {
  server = await startBridgeTestServer({ pingIntervalMs: 50 });
  const res = await inboxClient({ url: server.url } as never).register(ALICE, alice);
  expect(res.status).toBe(200);
});
afterEach(async () => {
  for (const close of closers.splice(0)) close();
  await server.stop();
});

async function sse(url: string) {
  const controller = new AbortController();
  closers.push(() => controller.abort());
  return new SseReader(await fetch(url, { signal: controller.signal }));
}

async function liveWs(): Promise<number> {
  const metric = await server.services.metrics.bridgesLive.get();
  return metric.values.find((v) => v.labels.transport === "ws")?.value ?? 0;
}

describe("heartbeats", () => {
  it("sends `: ping` comments on both SSE routes at the configured interval", async () => {
    const stream = await sse(bridgeUrl(server.url, "stream", alice, ALICE));
    const presence = await sse(presenceUrl(server.url, alice, ALICE, []));
    await until(() => stream.comments.length >= 3 && presence.comments.length >= 3);
    expect(new Set([...stream.comments, ...presence.comments])).toEqual(new Set([": ping"]));
    expect(stream.events).toEqual([]);
  });

  it("pings WebSocket bridges, keeps peers that answer, terminates peers that do not", async () => {
    const url = bridgeUrl(server.url, "ws", alice, ALICE).replace(/^http/, "ws");
    const answering = new WebSocket(url);
    const silent = new WebSocket(url, { autoPong: false });
    closers.push(
      () => answering.terminate(),
      () => silent.terminate(),
    );
    let pings = 0;
    answering.on("ping", () => pings++);
    const silentClosed = new Promise<void>((resolve) => silent.once("close", () => resolve()));
    await until(async () => (await liveWs()) === 2);
    await silentClosed;
    await until(async () => (await liveWs()) === 1);
    await until(() => pings >= 4);
    expect(answering.readyState).toBe(WebSocket.OPEN);
  });
});

describe("PingTicker", () => {
  it("ticks only while connections are registered", async () => {
    const ticker = new PingTicker(10);
    let ticks = 0;
    const ping = () => ticks++;
    ticker.add(ping);
    await until(() => ticks >= 2);
    ticker.delete(ping);
    const stopped = ticks;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(ticks).toBe(stopped);
    expect(() => new PingTicker(0)).toThrow(RangeError);
  });
});
