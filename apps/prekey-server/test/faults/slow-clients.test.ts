import { bridgeUrl, envelope, InboxClient, msgIdOf, party } from "@svc/test-client";
import { afterAll, describe, expect, it } from "vitest";
import { SseBridge, WsBridge } from "./support/bridge-clients.js";
import { canHavePostgres, postgresDatabase } from "./support/fault-database.js";
import { type Closer, runClosers, startServerProcess } from "./support/server-process.js";
import { frozenClient, pausedClient } from "./support/stalled-clients.js";
import { SENDER } from "./support/steady-load.js";
import { sleep, waitFor } from "./support/wait.js";

const closers: Closer[] = [];
afterAll(() => runClosers(closers));

const STALLED = "stalled:1";
const stalledOwner = party("stalled");
const OTHER = "stalled-other:1";
const otherOwner = party("stalled-other");
/** Each deposit: 256 KiB, about 350 KB on a bridge in base64. */
const ENVELOPE_BYTES = 256 * 1024;
const DEPOSITS = 100;
/**
 * What one connection may hold in the server (svc_bridge_unsent_bytes_max): once more than 1 MiB
 * waits (bridge-hub MAX_UNSENT_BYTES), the next envelope cuts it off instead of being queued, so
 * 1 MiB and one envelope event. Without that bound each stalled connection would end up holding
 * all it was sent (33 MB here), the kernel's socket buffers (a few MB) aside.
 */
const PER_CONNECTION_BOUND = 1024 * 1024 + 400 * 1024;
const STALLED_CONNECTIONS = 4;

describe("slow and dead bridge clients", () => {
  it("cuts off clients that do not read, keeps memory bounded and the other clients served", async () => {
    const env: Record<string, string> = { SVC_RATE_LIMIT: "off" };
    if (canHavePostgres()) env.DATABASE_URL = await postgresDatabase(closers);
    const server = await startServerProcess(closers, env);
    const inbox = new InboxClient((path, init) => fetch(`${server.url}${path}`, init), Date.now);
    expect((await inbox.register(STALLED, stalledOwner)).status).toBe(200);
    expect((await inbox.register(OTHER, otherOwner)).status).toBe(200);

    // Stalled: an SSE and a WebSocket client that never read, and a process frozen with both open.
    const sseUrl = bridgeUrl(server.url, "stream", stalledOwner, STALLED);
    const wsUrl = bridgeUrl(server.url, "ws", stalledOwner, STALLED).replace(/^http/, "ws");
    const pausedSse = await pausedClient(
      closers,
      server.url,
      new URL(sseUrl).pathname + new URL(sseUrl).search,
    );
    const pausedWs = await pausedClient(
      closers,
      server.url,
      new URL(wsUrl).pathname + new URL(wsUrl).search,
      true,
    );
    expect(pausedSse.status).toBe("HTTP/1.1 200 OK");
    expect(pausedWs.status).toBe("HTTP/1.1 101 Switching Protocols");
    await frozenClient(closers, sseUrl, wsUrl);
    // Healthy: bridges of the same address and of another one.
    const healthySse = new SseBridge([server.url], stalledOwner, STALLED);
    const healthyWs = new WsBridge([server.url], stalledOwner, STALLED);
    const other = new SseBridge([server.url], otherOwner, OTHER);
    for (const client of [healthySse, healthyWs, other]) closers.push(async () => client.close());
    await waitFor(
      () => healthySse.connects + healthyWs.connects + other.connects === 3,
      5000,
      "bridges",
    );
    await waitFor(async () => (await liveBridges(server.url)) === 7, 5000, "7 live bridges");

    await sleep(500);
    const before = await server.rssBytes();
    let peakRss = before;
    const peakUnsent = { total: 0, largest: 0 };
    const sampler = setInterval(() => {
      Promise.all([server.rssBytes(), unsentBytes(server.url)]).then(
        ([rss, unsent]) => {
          peakRss = Math.max(peakRss, rss);
          peakUnsent.total = Math.max(peakUnsent.total, unsent.total);
          peakUnsent.largest = Math.max(peakUnsent.largest, unsent.largest);
        },
        () => {},
      );
    }, 50);

    // The flood: 100 x 256 KiB to the stalled address, a small deposit to the other between.
    const flooded: string[] = [];
    const small: Array<{ msgId: string; at: number }> = [];
    for (let n = 0; n < DEPOSITS; n++) {
      const bytes = envelope(n, ENVELOPE_BYTES);
      const res = await inbox.deposit(STALLED, SENDER, bytes);
      expect(res.status).toBe(200);
      await res.body?.cancel();
      flooded.push(msgIdOf(bytes));
      await sleep(5); // for the sampler to see the stalled connections' buffers fill
      if (n % 10 === 0) {
        const note = envelope(n, 32);
        small.push({ msgId: msgIdOf(note), at: performance.now() });
        expect((await inbox.deposit(OTHER, SENDER, note)).status).toBe(200);
      }
    }

    // The healthy clients got everything, the other address each deposit within 2 s.
    await waitFor(
      () => healthySse.delivered.length === DEPOSITS && healthyWs.delivered.length === DEPOSITS,
      20_000,
      "the healthy bridges to catch up",
    );
    expect(healthySse.delivered.map((d) => d.msgId)).toEqual(flooded);
    expect(healthyWs.delivered.map((d) => d.msgId)).toEqual(flooded);
    await waitFor(() => other.delivered.length === small.length, 3000, "the other address");
    const latencies = small.map((s, i) => (other.delivered[i]?.at ?? Infinity) - s.at);
    expect(other.delivered.map((d) => d.msgId)).toEqual(small.map((s) => s.msgId));
    expect(Math.max(...latencies)).toBeLessThan(2000);

    // The four stalled connections were cut off; the three healthy ones are still there.
    await waitFor(
      async () => (await liveBridges(server.url)) === 3,
      5000,
      "the stalled bridges to go",
    );
    clearInterval(sampler);
    const after = await server.rssBytes();
    console.info(
      JSON.stringify({
        unsentPeakTotalMiB: mib(peakUnsent.total),
        unsentPeakLargestMiB: mib(peakUnsent.largest),
        rssBeforeMiB: mib(before),
        rssPeakMiB: mib(peakRss),
        rssAfterMiB: mib(after),
        sentPerStalledConnectionMiB: mib(DEPOSITS * Math.ceil(ENVELOPE_BYTES / 3) * 4),
      }),
    );
    // The slow clients held the server's buffers up to the bound, and no further.
    expect(peakUnsent.largest).toBeGreaterThan(256 * 1024);
    expect(peakUnsent.largest).toBeLessThan(PER_CONNECTION_BOUND);
    expect(peakUnsent.total).toBeLessThan(STALLED_CONNECTIONS * PER_CONNECTION_BOUND + 1024 * 1024);
    expect(healthySse.connects + healthyWs.connects + other.connects).toBe(3);
    expect(server.alive()).toBe(true);
  }, 90_000);
});

/** svc_bridges_live summed over the SSE and WebSocket transports, from /metrics. */
async function liveBridges(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let total = 0;
  for (const match of text.matchAll(/^svc_bridges_live\{transport="(sse|ws)"\} (\d+)$/gm)) {
    total += Number(match[2]);
  }
  return total;
}

/** svc_bridge_unsent_bytes and svc_bridge_unsent_bytes_max, from /metrics. */
async function unsentBytes(url: string): Promise<{ total: number; largest: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (name: string) =>
    Number(new RegExp(`^${name} (\\d+)$`, "m").exec(text)?.[1] ?? NaN);
  return { total: value("svc_bridge_unsent_bytes"), largest: value("svc_bridge_unsent_bytes_max") };
}

const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
