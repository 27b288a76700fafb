import { connect, type Socket } from "node:net";
import { envelope, InboxClient, party } from "@svc/test-client";
import { afterAll, describe, expect, it } from "vitest";
import { type Closer, runClosers, startServerProcess } from "./support/server-process.js";
import { SENDER } from "./support/steady-load.js";
import { sleep } from "./support/wait.js";

const closers: Closer[] = [];
afterAll(() => runClosers(closers));

/** Shorter than the defaults (10 s and 60 s) so that the test waits less; the logic is the same. */
const HEADERS_TIMEOUT_MS = 3000;
const REQUEST_TIMEOUT_MS = 5000;
/** The server checks its connections' deadlines once a second. */
const CHECK_SLACK_MS = 2500;
const SLOW_HEADERS = 300;
const IDLE = 300;
const SLOW_BODIES = 50;
/** docs/operations.md, "Faults": a normal request's answer during the flood. */
const ANSWER_WITHIN_MS = 2000;

const RECIPIENT = "slowloris:1";

interface Held {
  socket: Socket;
  openedAt: number;
  closedAt?: number;
  /** What the server wrote before closing (a 408, or nothing). */
  received: string;
}

describe("slowloris and connection floods", () => {
  it("keeps answering normal requests promptly and drops the slow and idle connections", async () => {
    const server = await startServerProcess(closers, {
      SVC_RATE_LIMIT: "off",
      SVC_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      SVC_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    });
    const { hostname, port } = new URL(server.url);
    const inbox = new InboxClient((path, init) => fetch(`${server.url}${path}`, init), Date.now);
    expect((await inbox.register(RECIPIENT, party("slowloris"))).status).toBe(200);

    const open = async (first: string): Promise<Held> => {
      const socket = connect(Number(port), hostname);
      const held: Held = { socket, openedAt: performance.now(), received: "" };
      socket.on("data", (chunk: Buffer) => {
        held.received += chunk.toString("latin1");
      });
      socket.on("error", () => {});
      socket.once("close", () => {
        held.closedAt = performance.now();
      });
      closers.push(async () => {
        socket.destroy();
      });
      await new Promise<void>((resolve, reject) => {
        socket.once("connect", resolve);
        socket.once("error", reject);
      });
      if (first) socket.write(first);
      return held;
    };

    // Slowloris: headers one byte at a time, never finished. Idle: connected, silent. Slow
    // bodies: complete headers, then a body that trickles in and never completes.
    const slowHeaders: Held[] = [];
    const idle: Held[] = [];
    const slowBodies: Held[] = [];
    for (let i = 0; i < SLOW_HEADERS; i++) {
      slowHeaders.push(await open(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\nX-Slow: `));
    }
    for (let i = 0; i < IDLE; i++) idle.push(await open(""));
    for (let i = 0; i < SLOW_BODIES; i++) {
      const head = `POST /v1/inbox/${RECIPIENT} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`;
      slowBodies.push(await open(head));
    }
    const trickle = setInterval(() => {
      for (const held of [...slowHeaders, ...slowBodies]) {
        if (held.closedAt === undefined) held.socket.write("a");
      }
    }, 200);
    closers.push(async () => clearInterval(trickle));

    // Meanwhile normal clients: health, a deposit and metrics, answered promptly.
    const latencies: number[] = [];
    const statuses = new Set<number>();
    const floodStarted = performance.now();
    let n = 0;
    while (performance.now() - floodStarted < REQUEST_TIMEOUT_MS + CHECK_SLACK_MS + 500) {
      for (const send of [
        () => fetch(`${server.url}/health`),
        () => inbox.deposit(RECIPIENT, SENDER, envelope(n++)),
        () => fetch(`${server.url}/v1/keys/count/${RECIPIENT}`),
      ]) {
        const started = performance.now();
        const res = await send();
        await res.arrayBuffer();
        latencies.push(performance.now() - started);
        statuses.add(res.status);
      }
      await sleep(100);
    }
    clearInterval(trickle);

    // Every slow or idle connection was closed by the server, by its deadline.
    const lateness = (held: Held[], deadlineMs: number) =>
      held.map((h) => (h.closedAt ?? Number.POSITIVE_INFINITY) - h.openedAt - deadlineMs);
    const headersLate = Math.max(...lateness(slowHeaders, HEADERS_TIMEOUT_MS));
    const idleLate = Math.max(...lateness(idle, HEADERS_TIMEOUT_MS));
    const bodiesLate = Math.max(...lateness(slowBodies, REQUEST_TIMEOUT_MS));
    const sorted = [...latencies].sort((x, y) => x - y);
    console.info(
      JSON.stringify({
        requests: latencies.length,
        medianMs: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0),
        maxMs: Math.round(sorted.at(-1) ?? 0),
        slowHeadersClosedLateMs: Math.round(headersLate),
        idleClosedLateMs: Math.round(idleLate),
        slowBodiesClosedLateMs: Math.round(bodiesLate),
      }),
    );
    expect(statuses).toEqual(new Set([200]));
    expect(sorted.at(-1)).toBeLessThan(ANSWER_WITHIN_MS);
    expect(headersLate).toBeLessThan(CHECK_SLACK_MS);
    expect(idleLate).toBeLessThan(CHECK_SLACK_MS);
    expect(bodiesLate).toBeLessThan(CHECK_SLACK_MS);
    // None was closed before its deadline, and the slow requests were told why (408).
    expect(Math.min(...lateness(slowHeaders, HEADERS_TIMEOUT_MS))).toBeGreaterThan(-100);
    expect(slowHeaders.every((h) => h.received.startsWith("HTTP/1.1 408"))).toBe(true);
    expect(server.alive()).toBe(true);
  }, 60_000);
});
