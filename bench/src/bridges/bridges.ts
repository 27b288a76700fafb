import { createHash } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { get, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { encodeBase64 } from "@svc/canonical";
import { type SpawnedProcess, spawnNode } from "@svc/processes";
import {
  bridgeUrl,
  InboxClient,
  overHttp,
  type Party,
  send,
  signedBodyBy,
  party as testParty,
} from "@svc/test-client";
import { type KeepAliveSockets, keepAliveSockets, nodeSigner } from "@svc/test-client/node";
import WebSocket from "ws";
import { percentile } from "../harness/measure.js";
import { benchDatabaseUrl } from "../harness/postgres-url.js";
import { type ServerProcess, startServerProcess } from "../harness/server-process.js";
import { type BenchRow, printTable } from "../harness/table.js";

const DEPOSITS_PER_SECOND = 500;
const LOAD_SECONDS = 6;
/**
 * Deposits at the same rate before the measured ones, so that no row pays for a cold server (JIT,
 * pooled connections): with one second, the first row on a fresh instance still measured slower
 * than the same transport measured second.
 */
const WARMUP_SECONDS = 6;
const MAX_IN_FLIGHT = 64;
const RECIPIENTS = 10;
const IDLE_BRIDGES = Number(process.env.BENCH_IDLE_BRIDGES ?? 5000);

/**
 * Bridges: deposit-to-delivery latency over SSE and WebSocket at a fixed deposit rate (one
 * instance on the embedded database; one and two instances on PostgreSQL when one is
 * configured; every instance in a process of its own), and the resident memory per idle bridge,
 * beside a bare node:http event-stream server holding as many connections.
 */
export async function bridgesSuite(): Promise<void> {
  const latency: BenchRow[] = [];
  const local = await startInstance();
  try {
    for (const transport of ["sse", "ws"] as const) {
      latency.push(
        ...(await deliveryLatency(`${transport}, one instance (PGlite)`, local, local, transport)),
      );
    }
  } finally {
    await local.stop();
  }
  const databaseUrl = benchDatabaseUrl();
  if (databaseUrl) {
    const a = await startInstance(databaseUrl);
    const b = await startInstance(databaseUrl);
    try {
      for (const transport of ["sse", "ws"] as const) {
        latency.push(
          ...(await deliveryLatency(`${transport}, one instance (PostgreSQL)`, a, a, transport)),
        );
      }
      for (const transport of ["sse", "ws"] as const) {
        latency.push(
          ...(await deliveryLatency(`${transport}, A -> B via PostgreSQL`, a, b, transport)),
        );
      }
    } finally {
      await a.stop();
      await b.stop();
    }
  }
  printTable(`bridges: deposit-to-delivery at ${DEPOSITS_PER_SECOND} deposits/s`, latency);

  const bare = "bare node:http SSE";
  printTable(`bridges: resident memory per idle connection (${IDLE_BRIDGES} held)`, [
    await idleMemory(bare, "bare-server", "sse-clients"),
    await idleMemory("SSE bridges (prekey server)", "app-server", "sse-clients", bare),
    await idleMemory("WebSocket bridges (prekey server)", "app-server", "ws-clients", bare),
  ]);
}

// ------------------------------------------------------------------ latency

/** A prekey server in a process of its own, on the embedded database or on PostgreSQL. */
async function startInstance(databaseUrl?: string): Promise<ServerProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), "svc-bench-bridges-"));
  const env: Record<string, string> = {
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: "silent",
    SVC_KT: "off",
    SVC_RATE_LIMIT: "off",
  };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  return startServerProcess(env);
}

const party = (label: string): Party => testParty(`bench-bridges:${label}`, nodeSigner);

/** One retry on a network error (a pooled keep-alive connection the server closed). */
async function register(base: string, address: string, owner: Party): Promise<void> {
  const client = new InboxClient(overHttp(base), Date.now);
  const res = await client.register(address, owner).catch(() => client.register(address, owner));
  if (res.status !== 200) throw new Error(`register answered ${res.status}: ${await res.text()}`);
}

async function deliveryLatency(
  name: string,
  depositTo: ServerProcess,
  deliverFrom: ServerProcess,
  transport: "sse" | "ws",
): Promise<BenchRow[]> {
  const run = `${transport}-${Date.now().toString(36)}`;
  const owner = party("recipient");
  const sender = party("sender");
  const recipients = Array.from({ length: RECIPIENTS }, (_, i) => `bench-${run}:${i}`);
  for (const address of recipients) await register(depositTo.url, address, owner);

  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  /** Request to response of each measured deposit: the floor under its delivery. */
  const answered: number[] = [];
  const onEnvelope = (json: string) => {
    const { msgId } = JSON.parse(json) as { msgId: string };
    const started = sentAt.get(msgId);
    if (started !== undefined) latencies.push(performance.now() - started);
  };
  const bridges = await Promise.all(
    recipients.map((address) =>
      transport === "sse"
        ? openSse(bridgeUrl(deliverFrom.url, "stream", owner, address), onEnvelope)
        : openWs(bridgeUrl(deliverFrom.url, "ws", owner, address), onEnvelope),
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 300));

  const http = keepAliveSockets(depositTo.url, MAX_IN_FLIGHT);
  const warmup = DEPOSITS_PER_SECOND * WARMUP_SECONDS;
  const measured = DEPOSITS_PER_SECOND * LOAD_SECONDS;
  const total = warmup + measured;
  // Signed ahead, so that the load generator's own work while the clock runs is sending and
  // receiving: on two cores, its CPU would otherwise be taken from the server it measures.
  const deposits = Array.from({ length: total }, (_, n) =>
    depositRequest(recipients[n % RECIPIENTS] ?? "", sender, n),
  );
  let inFlight = 0;
  let failed = 0;
  // Counted, not kept: holding every deposit's promise until the end made each of the load
  // generator's own young-generation collections copy them all (3 ms pauses inside the window).
  let settled = 0;
  let allSettled = () => {};
  const done = new Promise<void>((resolve) => {
    allSettled = resolve;
  });
  const send = async (n: number) => {
    const counted = n >= warmup;
    try {
      const ms = await deposit(http, deposits[n] as DepositRequest, counted ? sentAt : undefined);
      if (counted) answered.push(ms);
    } catch {
      if (counted) failed++;
    } finally {
      inFlight--;
      if (++settled === total) allSettled();
    }
  };
  const started = performance.now();
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / DEPOSITS_PER_SECOND;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    // An open loop, but bounded: a server slower than the rate lowers the achieved rate.
    while (inFlight >= MAX_IN_FLIGHT) await new Promise((resolve) => setTimeout(resolve, 1));
    inFlight++;
    void send(n);
  }
  await done;
  http.close();
  const depositRate = total / ((performance.now() - started) / 1000);
  const deadline = performance.now() + 10_000;
  while (latencies.length < measured - failed && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const elapsed = (performance.now() - started) / 1000 - WARMUP_SECONDS;
  for (const close of bridges) close();
  latencies.sort((x, y) => x - y);
  answered.sort((x, y) => x - y);
  const depositsName = `  deposit answer, ${name}`;
  return [
    {
      name,
      opsPerSec: latencies.length / elapsed,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      baseline: depositsName,
      compare: "p99Ms",
      note: `${latencies.length}/${measured} delivered after ${WARMUP_SECONDS} s of warm-up, ${failed} deposits failed, deposits at ${Math.round(depositRate)}/s`,
    },
    {
      name: depositsName,
      opsPerSec: answered.length / elapsed,
      p50Ms: percentile(answered, 0.5),
      p99Ms: percentile(answered, 0.99),
      note: "same run: the deposit's own HTTP round trip, the floor under its delivery",
    },
  ];
}

interface DepositRequest {
  msgId: string;
  path: string;
  body: string;
}

function depositRequest(address: string, sender: Party, n: number): DepositRequest {
  const ciphertext = new Uint8Array(64);
  ciphertext[0] = 0x02;
  new DataView(ciphertext.buffer).setFloat64(1, Math.random());
  new DataView(ciphertext.buffer).setUint32(9, n);
  const msgId = createHash("sha256").update(ciphertext).digest("hex");
  const path = `/v1/inbox/${address}`;
  const fields = {
    msgId,
    ciphertext: encodeBase64(ciphertext),
    expiresAt: Date.now() + 3_600_000,
    senderPublicKey: sender.publicKey,
    signedAt: Date.now(),
  };
  return { msgId, path, body: JSON.stringify(signedBodyBy(sender.signer, "POST", path, fields)) };
}

/** Sends a prepared deposit; answers its request-to-answer time. */
async function deposit(
  http: KeepAliveSockets,
  { msgId, path, body }: DepositRequest,
  sentAt: Map<string, number> | undefined,
): Promise<number> {
  const sent = performance.now();
  sentAt?.set(msgId, sent);
  const res = await send(http, { method: "POST", path, body });
  if (res.status !== 200) throw new Error(`deposit answered ${res.status}`);
  return performance.now() - sent;
}

/** An SSE client on node:http (fetch's web streams would add their own cost to every event). */
async function openSse(url: string, onData: (json: string) => void): Promise<() => void> {
  const res = await new Promise<IncomingMessage>((resolve, reject) =>
    get(url, resolve).once("error", reject),
  );
  if (res.statusCode !== 200) throw new Error(`stream answered ${res.statusCode}`);
  res.setEncoding("utf8");
  let buffer = "";
  res.on("data", (chunk: string) => {
    buffer += chunk;
    let end = buffer.indexOf("\n\n");
    while (end !== -1) {
      const data = buffer
        .slice(0, end)
        .split("\n")
        .find((line) => line.startsWith("data: "));
      if (data) onData(data.slice(6));
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
    }
  });
  res.on("error", () => {}); // the bench closes the stream
  return () => res.destroy();
}

// `ws` is a dependency of the server package, not of the benchmarks: load it from there.

async function openWs(url: string, onData: (json: string) => void): Promise<() => void> {
  const socket = new WebSocket(url.replace(/^http/, "ws"));
  socket.on("message", (data: Buffer) => onData(String(data)));
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  return () => socket.terminate();
}

// ------------------------------------------------------------------ idle memory

const CHILD = fileURLToPath(
  new URL(
    import.meta.url.endsWith(".ts") ? "./bridges-child.ts" : "./bridges-child.js",
    import.meta.url,
  ),
);

/**
 * The young generation of every server measured here is pinned at V8's default maximum on 64-bit
 * (16 MiB semi-spaces) and filled before each reading (bridges-child.ts): it grows with the rate
 * of allocation, not with the connections held, and left free it grew by 0 to 32 MiB between two
 * readings of the same server, up to 6 KiB per connection of noise either way.
 */
const SERVER_FLAGS = ["--expose-gc", "--min-semi-space-size=16", "--max-semi-space-size=16"];
/** Connections opened before the first reading: they pay the one-time costs (code compiled). */
const FIRST_HELD = Math.min(1000, Math.floor(IDLE_BRIDGES / 5));

function spawnChild(args: string[], flags: string[] = []) {
  const child = spawnNode(CHILD, args, {
    flags: [...process.execArgv, ...flags],
    inheritEnv: true,
    output: "inherit",
    ipc: true,
  });
  const next = async () => (await child.nextMessage()) as Record<string, number>;
  return { child, next };
}

/**
 * Resident memory per idle connection: the growth of the server's RSS from FIRST_HELD held
 * connections to IDLE_BRIDGES held, per connection added. The note also gives the growth over
 * all of them, one-time costs included.
 */
async function idleMemory(
  name: string,
  serverRole: "app-server" | "bare-server",
  clientRole: "sse-clients" | "ws-clients",
  baseline?: string,
): Promise<BenchRow> {
  const server = spawnChild([serverRole], SERVER_FLAGS);
  const clients: SpawnedProcess[] = [];
  try {
    const { port } = await server.next();
    const base = `http://127.0.0.1:${port}`;
    let url = `${base}/idle`;
    if (serverRole === "app-server") {
      const owner = party("idle");
      await register(base, "bench:idle", owner);
      url = bridgeUrl(base, clientRole === "ws-clients" ? "ws" : "stream", owner, "bench:idle");
    }
    const rss = async () => {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      server.child.send("rss");
      return (await server.next()).rss ?? 0;
    };
    const open = async (count: number) => {
      const opener = spawnChild([clientRole, url, String(count)]);
      clients.push(opener.child);
      const started = performance.now();
      const { opened = 0 } = await opener.next();
      return { opened, perSecond: opened / ((performance.now() - started) / 1000) };
    };
    const idle = await rss();
    const first = await open(FIRST_HELD);
    const held = await rss();
    const rest = await open(IDLE_BRIDGES - FIRST_HELD);
    const full = await rss();
    const opened = first.opened + rest.opened;
    const overAll = (full - idle) / Math.max(opened, 1) / 1024;
    return {
      name,
      opsPerSec: rest.perSecond,
      kibEach: (full - held) / Math.max(rest.opened, 1) / 1024,
      baseline,
      compare: "kibEach",
      note: `RSS growth per connection from ${first.opened} to ${opened} open; ${overAll.toFixed(1)} KiB over all ${opened} (ops/s = connections opened per second)`,
    };
  } finally {
    for (const client of clients) client.child.kill();
    server.child.child.kill();
  }
}
