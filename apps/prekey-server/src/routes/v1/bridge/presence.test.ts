import { request } from "node:http";
import { until } from "@svc/db/testing";
import { bridgeUrl, type Party, party, presenceUrl, SseReader } from "@svc/test-client";
import { beforeEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { ServerEventMap } from "../../../events.js";
import type { RunningServer } from "../../../server.js";
import { startTestServer } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { liveBridges, registeredInbox } from "./test-support/running-server.js";

const WATCHER = "watcher:1";
const watcher = party("watcher");
const peers: Record<string, Party> = {
  "bob:1": party("bob"),
  "carol:1": party("carol"),
  "dave:1": party("dave"),
};

let server: RunningServer;
const closers: Array<() => void> = [];
let serverEvents: Array<[keyof ServerEventMap, { address: string; at: number }]>;

beforeEach(async () => {
  server = await startTestServer();
  await registeredInbox(server, WATCHER, watcher);
  for (const [address, owner] of Object.entries(peers)) {
    await registeredInbox(server, address, owner);
  }
  serverEvents = [];
  for (const name of ["inbox.peer_connected", "inbox.peer_disconnected"] as const) {
    server.svc.services.events.on(name, (payload) => serverEvents.push([name, payload]));
  }
  return () => {
    for (const close of closers.splice(0)) close();
  };
});

async function sse(url: string) {
  const controller = new AbortController();
  closers.push(() => controller.abort());
  const res = await fetch(url, { signal: controller.signal });
  expect(res.status).toBe(200);
  await expectContract(res, "GET", new URL(url).pathname);
  return { reader: new SseReader(res), close: () => controller.abort() };
}

async function wsBridge(address: string) {
  const url = bridgeUrl(server.url, "ws", peers[address] as Party, address).replace(/^http/, "ws");
  const socket = new WebSocket(url);
  closers.push(() => socket.terminate());
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return socket;
}

const streamUrl = (address: string) =>
  bridgeUrl(server.url, "stream", peers[address] as Party, address);

describe("GET /v1/bridge/presence", () => {
  it("snapshots each watched address, then reports changes of watched addresses only", async () => {
    await wsBridge("bob:1");
    await until(() => serverEvents.length === 1);
    const { reader } = await sse(presenceUrl(server.url, watcher, WATCHER, ["carol:1", "bob:1"]));
    await until(() => reader.events.length === 2);
    const snapshot = reader.data<{ address: string; online: boolean; at: number }>("presence");
    expect(snapshot.map(({ address, online }) => [address, online])).toEqual([
      ["carol:1", false],
      ["bob:1", true],
    ]);
    expect(typeof snapshot[0]?.at).toBe("number");

    await wsBridge("dave:1"); // not watched
    const carol = await sse(streamUrl("carol:1"));
    await until(() => reader.events.length === 3);
    carol.close();
    await until(() => reader.events.length === 4);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reader.events.slice(2).map((e) => [e.event, JSON.parse(e.data).address])).toEqual([
      ["inbox.peer_connected", "carol:1"],
      ["inbox.peer_disconnected", "carol:1"],
    ]);
    expect(Object.keys(JSON.parse(reader.events[2]?.data ?? "{}")).sort()).toEqual([
      "address",
      "at",
    ]);
  });

  it("collapses a WebSocket and an SSE bridge of one address into one connect/disconnect pair", async () => {
    const { reader } = await sse(presenceUrl(server.url, watcher, WATCHER, ["bob:1"]));
    await until(() => reader.events.length === 1);
    const socket = await wsBridge("bob:1");
    const stream = await sse(streamUrl("bob:1"));
    await until(async () => (await liveBridges(server, "sse")) === 1);
    socket.close();
    await until(async () => (await liveBridges(server, "ws")) === 0);
    stream.close();
    await until(() => serverEvents.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(serverEvents.map(([name, payload]) => [name, payload.address])).toEqual([
      ["inbox.peer_connected", "bob:1"],
      ["inbox.peer_disconnected", "bob:1"],
    ]);
    expect(reader.events.map((e) => e.event)).toEqual([
      "presence",
      "inbox.peer_connected",
      "inbox.peer_disconnected",
    ]);
  });

  it("does not count presence feeds or long-polls as bridges", async () => {
    await sse(presenceUrl(server.url, watcher, WATCHER, [WATCHER]));
    const poll = fetch(
      bridgeUrl(server.url, "poll", watcher, WATCHER, { extra: { timeoutMs: "200" } }),
    );
    expect((await poll).status).toBe(200);
    expect(serverEvents).toEqual([]);
  });

  it("reports an abruptly killed bridge as disconnected and forgets it", async () => {
    const url = new URL(streamUrl("bob:1"));
    const socketKilled = new Promise<void>((resolve, reject) => {
      const req = request(url, (res) => {
        expect(res.statusCode).toBe(200);
        res.once("data", () => {});
        setTimeout(() => {
          req.socket?.destroy();
          resolve();
        }, 100);
      });
      req.on("error", () => {});
      req.setTimeout(5000, () => reject(new Error("no response")));
      req.end();
    });
    await until(() => serverEvents.length === 1);
    await socketKilled;
    await until(() => serverEvents.length === 2, 30_000);
    expect(serverEvents.map(([name]) => name)).toEqual([
      "inbox.peer_connected",
      "inbox.peer_disconnected",
    ]);
    expect(await liveBridges(server, "sse")).toBe(0);
  });
});
