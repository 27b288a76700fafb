import { until } from "@svc/db/testing";
import { bridgeUrl, party, SseReader } from "@svc/test-client";
import { beforeEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../../server.js";
import { startTestServer } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { liveBridges, registeredInbox } from "./test-support/running-server.js";

const ALICE = "alice@example.com:1";
const alice = party("alice");
const PATH = "/v1/bridge/stream";

let server: RunningServer;
let deposit: (n: number) => Promise<string>;
const readers: AbortController[] = [];

beforeEach(async () => {
  server = await startTestServer();
  deposit = await registeredInbox(server, ALICE, alice);
  return () => {
    for (const controller of readers.splice(0)) controller.abort();
  };
});

async function openStream(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  readers.push(controller);
  const res = await fetch(url, { headers, signal: controller.signal });
  expect(res.status).toBe(200);
  await expectContract(res, "GET", PATH);
  return { reader: new SseReader(res), controller };
}

describe("GET /v1/bridge/stream", () => {
  it("replays the backlog, then delivers live deposits as `envelope` events", async () => {
    const first = await deposit(1);
    const { reader } = await openStream(bridgeUrl(server.url, "stream", alice, ALICE));
    await until(() => reader.events.length === 1);
    const second = await deposit(2);
    await until(() => reader.events.length === 2);

    const [a, b] = reader.data<{ from: string; bytes: string; receivedAt: number; msgId: string }>(
      "envelope",
    );
    expect(a?.bytes).toBe(first);
    expect(b?.bytes).toBe(second);
    expect(Object.keys(a ?? {}).sort()).toEqual(["bytes", "from", "msgId", "receivedAt"]);
    expect(a?.from).toMatch(/^key:[A-Za-z0-9_-]{43}$/);
    expect(a?.msgId).toMatch(/^[0-9a-f]{64}$/);
    expect(reader.events.map((e) => e.id)).toEqual([String(a?.receivedAt), String(b?.receivedAt)]);
    expect(b?.receivedAt).toBeGreaterThan(a?.receivedAt ?? Infinity);
  });

  it("starts after `since`", async () => {
    await deposit(1);
    await deposit(2);
    const { reader: all } = await openStream(bridgeUrl(server.url, "stream", alice, ALICE));
    await until(() => all.events.length === 2);
    const firstId = Number(all.events[0]?.id);
    const { reader } = await openStream(
      bridgeUrl(server.url, "stream", alice, ALICE, { since: firstId }),
    );
    await until(() => reader.events.length === 1);
    expect(reader.events[0]?.id).toBe(all.events[1]?.id);
  });

  it("resumes after a valid Last-Event-ID, which replaces `since`", async () => {
    for (let n = 1; n <= 3; n++) await deposit(n);
    const first = await openStream(bridgeUrl(server.url, "stream", alice, ALICE));
    await until(() => first.reader.events.length === 3);
    first.controller.abort();
    const lastSeen = first.reader.events[1]?.id ?? "";

    const resumed = await openStream(bridgeUrl(server.url, "stream", alice, ALICE, { since: 0 }), {
      "Last-Event-ID": lastSeen,
    });
    await until(() => resumed.reader.events.length === 1);
    await deposit(4);
    await until(() => resumed.reader.events.length === 2);
    expect(resumed.reader.events[0]?.id).toBe(first.reader.events[2]?.id);

    const ignored = await openStream(bridgeUrl(server.url, "stream", alice, ALICE), {
      "Last-Event-ID": "not-a-number",
    });
    await until(() => ignored.reader.events.length === 4);
  });

  it("counts the stream while it is open and forgets it when the client goes", async () => {
    const { controller } = await openStream(bridgeUrl(server.url, "stream", alice, ALICE));
    await until(async () => (await liveBridges(server, "sse")) === 1);
    controller.abort();
    await until(async () => (await liveBridges(server, "sse")) === 0);
  });

  it("ends open streams when the server stops", async () => {
    const { reader } = await openStream(bridgeUrl(server.url, "stream", alice, ALICE));
    const started = Date.now();
    await server.stop();
    await reader.done;
    expect(reader.closed).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
