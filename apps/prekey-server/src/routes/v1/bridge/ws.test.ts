import { until } from "@svc/db/testing";
import { bridgeUrl, party } from "@svc/test-client";
import { beforeEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { RunningServer } from "../../../server.js";
import { startTestServer } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { liveBridges, registeredInbox } from "./test-support/running-server.js";

const ALICE = "alice@example.com:1";
const alice = party("alice");
const mallory = party("mallory");

let server: RunningServer;
let deposit: (n: number) => Promise<string>;
const sockets: WebSocket[] = [];

beforeEach(async () => {
  server = await startTestServer();
  deposit = await registeredInbox(server, ALICE, alice);
  return () => {
    for (const socket of sockets.splice(0)) socket.terminate();
  };
});

function wsUrl(owner = alice, address = ALICE, since?: number): string {
  return bridgeUrl(server.url, "ws", owner, address, { since }).replace(/^http/, "ws");
}

async function connect(url: string) {
  const socket = new WebSocket(url);
  sockets.push(socket);
  const frames: Array<{ bytes: string; receivedAt: number; from: string; msgId: string }> = [];
  socket.on("message", (data, isBinary) => {
    expect(isBinary).toBe(false);
    frames.push(JSON.parse(String(data)));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return { socket, frames };
}

/** The HTTP answer to an upgrade request that the server refuses. */
function refusal(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once("open", () => reject(new Error("upgraded")));
    socket.once("error", () => {});
    socket.once("unexpected-response", (_req, res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => {
        text += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
  });
}

describe("GET /v1/bridge/ws", () => {
  it("sends the backlog after `since`, then one text frame per live envelope", async () => {
    await deposit(1);
    const second = await deposit(2);
    const { frames } = await connect(wsUrl());
    await until(() => frames.length === 2);
    const { frames: after } = await connect(wsUrl(alice, ALICE, frames[0]?.receivedAt));
    await until(() => after.length === 1);
    expect(after[0]?.bytes).toBe(second);
    const third = await deposit(3);
    await until(() => frames.length === 3 && after.length === 2);
    expect(frames[2]?.bytes).toBe(third);
    expect(Object.keys(frames[2] ?? {}).sort()).toEqual(["bytes", "from", "msgId", "receivedAt"]);
    expect(await liveBridges(server, "ws")).toBe(2);
  });

  it("answers authentication failures as HTTP errors before the upgrade", async () => {
    expect(await refusal(wsUrl(mallory))).toMatchObject({
      status: 401,
      body: { code: "SVC_BAD_SIGNATURE" },
    });
    expect(await refusal(wsUrl(mallory, "mallory:1"))).toMatchObject({
      status: 401,
      body: { code: "SVC_WRONG_KEY" },
    });
    const bad = new URL(wsUrl());
    bad.searchParams.set("signedAt", "soon");
    expect(await refusal(bad.toString())).toMatchObject({
      status: 400,
      body: { code: "SVC_BAD_REQUEST" },
    });
    const elsewhere = wsUrl().replace("/v1/bridge/ws", "/v1/nothing");
    expect(await refusal(elsewhere)).toMatchObject({
      status: 404,
      body: { code: "SVC_NOT_FOUND" },
    });
  });

  it("answers a plain GET (no upgrade) with 400", async () => {
    const res = await fetch(bridgeUrl(server.url, "ws", alice, ALICE));
    expect(res.status).toBe(400);
    expect(await expectContract(res, "GET", "/v1/bridge/ws")).toMatchObject({
      code: "SVC_BAD_REQUEST",
    });
  });

  it("forgets a client that vanished without a close frame", async () => {
    const { socket } = await connect(wsUrl());
    await until(async () => (await liveBridges(server, "ws")) === 1);
    // The raw socket, to kill it without a close frame.
    (socket as unknown as { _socket: { destroy(): void } })._socket.destroy();
    await until(async () => (await liveBridges(server, "ws")) === 0);
  });

  it("closes bridges with 1001 when the server stops, within the shutdown budget", async () => {
    const { socket } = await connect(wsUrl());
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    const started = Date.now();
    await server.stop();
    expect(await closed).toBe(1001);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
