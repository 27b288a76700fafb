import { bridgeUrl, party } from "@svc/test-client";
import { beforeEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../../server.js";
import { startTestServer } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { liveBridges, registeredInbox } from "./test-support/running-server.js";

const ALICE = "alice@example.com:1";
const alice = party("alice");
const PATH = "/v1/bridge/poll";

let server: RunningServer;
let deposit: (n: number) => Promise<string>;

beforeEach(async () => {
  server = await startTestServer();
  deposit = await registeredInbox(server, ALICE, alice);
});

async function poll(options: Parameters<typeof bridgeUrl>[4] = {}) {
  const res = await fetch(bridgeUrl(server.url, "poll", alice, ALICE, options));
  const body = (await expectContract(res, "GET", PATH)) as {
    envelopes: Array<{ bytes: string; receivedAt: number }>;
  };
  return { status: res.status, body };
}

describe("GET /v1/bridge/poll", () => {
  it("returns pending envelopes at once, oldest first, after `since`", async () => {
    const bytes = [await deposit(1), await deposit(2), await deposit(3)];
    const all = await poll({ extra: { timeoutMs: "25000" } });
    expect(all.status).toBe(200);
    expect(all.body.envelopes.map((e) => e.bytes)).toEqual(bytes);
    const after = await poll({ since: all.body.envelopes[0]?.receivedAt ?? 0 });
    expect(after.body.envelopes.map((e) => e.bytes)).toEqual(bytes.slice(1));
  });

  it("returns at most 100 envelopes", async () => {
    for (let n = 0; n < 101; n++) await deposit(n);
    const { body } = await poll();
    expect(body.envelopes).toHaveLength(100);
  });

  it("holds the request until a deposit arrives (timeoutMs above 55000 is clamped)", async () => {
    const started = Date.now();
    const pending = poll({ extra: { timeoutMs: "600000" } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const bytes = await deposit(7);
    const { status, body } = await pending;
    expect(status).toBe(200);
    expect(body.envelopes.map((e) => e.bytes)).toEqual([bytes]);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("answers an empty batch after the timeout, and does not count as a push bridge", async () => {
    const started = Date.now();
    const pending = poll({ extra: { timeoutMs: "300" } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await liveBridges(server, "poll")).toBe(1);
    expect(await liveBridges(server, "sse")).toBe(0);
    const { status, body } = await pending;
    expect(status).toBe(200);
    expect(body.envelopes).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(await liveBridges(server, "poll")).toBe(0);
  });

  it.each(["-1", "1.5", "", "abc", "1e3", "0x10"])(
    "refuses timeoutMs=%j with 400",
    async (value) => {
      const { status, body } = await poll({ extra: { timeoutMs: value } });
      expect(status).toBe(400);
      expect(body).toMatchObject({ code: "SVC_BAD_REQUEST" });
    },
  );

  it("releases a held poll when the server stops", async () => {
    const pending = fetch(bridgeUrl(server.url, "poll", alice, ALICE)).then(
      (res) => res.status,
      () => "closed",
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    await server.stop();
    expect(Date.now() - started).toBeLessThan(5000);
    expect([200, "closed"]).toContain(await pending);
  });
});
