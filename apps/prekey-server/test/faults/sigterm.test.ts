import { createTestDatabase, hasTestPostgres } from "@svc/db/testing";
import { bridgeUrl, envelope, InboxClient, party, presenceUrl } from "@svc/test-client";
import { afterAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { slowRequest, streamingGet } from "./support/raw-http.js";
import { type Closer, runClosers, startServerProcess } from "./support/server-process.js";
import { OWNER, SENDER, SteadyLoad } from "./support/steady-load.js";
import { sleep, waitFor } from "./support/wait.js";

const closers: Closer[] = [];
afterAll(() => runClosers(closers));

/** docs/operations.md, "Faults": a SIGTERM under load ends the process, exit code 0, within this. */
const EXIT_WITHIN_MS = 5000;
const RECIPIENT = "sigterm-recipient:1";
const WATCHER = "sigterm-watcher:1";
const watcher = party("sigterm-watcher");

describe("SIGTERM under load", () => {
  it("answers the requests in flight, closes SSE and WebSocket bridges cleanly and exits 0", async () => {
    // On PostgreSQL where the tests have one, else on the embedded database.
    const env: Record<string, string> = { SVC_RATE_LIMIT: "off" };
    if (hasTestPostgres()) {
      const database = await createTestDatabase();
      closers.push(() => database.drop());
      env.DATABASE_URL = database.url;
    }
    const server = await startServerProcess(closers, env);
    const inbox = new InboxClient((path, init) => fetch(`${server.url}${path}`, init), Date.now);
    expect((await inbox.register(RECIPIENT, OWNER)).status).toBe(200);
    expect((await inbox.register(WATCHER, watcher)).status).toBe(200);
    const load = new SteadyLoad(() => server.url, { workers: 3, label: "sigterm" });
    await load.prepare();

    // Bridges: SSE, WebSocket, a presence feed and a held long-poll.
    const sse = streamingGet(bridgeUrl(server.url, "stream", OWNER, RECIPIENT));
    const presence = streamingGet(presenceUrl(server.url, watcher, WATCHER, [RECIPIENT]));
    const poll = streamingGet(
      bridgeUrl(server.url, "poll", watcher, WATCHER, { extra: { timeoutMs: "30000" } }),
    );
    const ws = new WebSocket(bridgeUrl(server.url, "ws", OWNER, RECIPIENT).replace(/^http/, "ws"));
    const wsFrames: string[] = [];
    ws.on("message", (data) => wsFrames.push(String(data)));
    ws.on("error", () => {});
    const wsClosed = new Promise<{ code: number; at: number }>((resolve) =>
      ws.once("close", (code) => resolve({ code, at: performance.now() })),
    );
    expect(await sse.status).toBe(200);
    expect(await presence.status).toBe(200);
    await waitFor(() => ws.readyState === WebSocket.OPEN, 5000, "the WebSocket bridge");
    await waitFor(() => presence.text().includes("event: presence"), 5000, "the presence snapshot");

    load.start();
    await sleep(1000);
    const delivered = await inbox.deposit(RECIPIENT, SENDER, envelope(1));
    expect(delivered.status).toBe(200);
    await waitFor(
      () => wsFrames.length >= 1 && sse.text().includes("event: envelope"),
      3000,
      "live delivery",
    );

    // In flight at the signal: deposits whose bodies are still arriving (a slow link), and quick
    // requests sent just before it on connections of their own.
    const slow = [0, 1, 2].map((i) => {
      const body = JSON.stringify(
        inbox.depositBody(RECIPIENT, SENDER, envelope(100 + i, 256 * 1024)),
      );
      return slowRequest(`${server.url}/v1/inbox/${RECIPIENT}`, "POST", body, {
        pieces: 10,
        overMs: 1200,
      });
    });
    await sleep(300);
    const quick = [0, 1, 2, 3, 4, 5].map((i) =>
      slowRequest(
        `${server.url}/v1/inbox/${RECIPIENT}`,
        "POST",
        JSON.stringify(inbox.depositBody(RECIPIENT, SENDER, envelope(200 + i, 1024))),
      ),
    );
    await Promise.all(quick.map((q) => q.sent));
    await sleep(20);

    const signalled = performance.now();
    server.child.kill("SIGTERM");
    const exit = await server.exited;
    const exitMs = performance.now() - signalled;
    await load.stop();

    // Every request in flight was answered, in full, with success.
    const answers = await Promise.all([...slow, ...quick].map(({ answer }) => answer));
    expect(answers.map((res) => `${res.status} ${res.ending} ${res.body}`)).toEqual(
      answers.map(() => expect.stringMatching(/^200 complete \{"idempotent":false,/)),
    );
    // The long-poll was released with an (empty) answer, the streams ended in full.
    const polled = await poll.ended;
    expect({ status: polled.status, ending: polled.ending }).toEqual({
      status: 200,
      ending: "complete",
    });
    expect(JSON.parse(polled.body)).toEqual({ envelopes: [] });
    for (const stream of [sse, presence]) {
      expect((await stream.ended).ending).toBe("complete");
    }
    // The WebSocket bridge got a close frame: 1001, going away.
    expect((await wsClosed).code).toBe(1001);

    expect(exit).toEqual({ code: 0, signal: null });
    expect(exitMs).toBeLessThan(EXIT_WITHIN_MS);
    const logs = server.logs();
    expect(logs.filter((line) => line.level === "error")).toEqual([]);
    expect(logs.some((line) => line.message === "shutting down")).toBe(true);
    console.info(JSON.stringify({ exitMs: Math.round(exitMs), requests: load.outcomes.length }));
  }, 60_000);
});
