import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { get, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { encodeBase64 } from "@svc/canonical";
import { createTestDatabase } from "@svc/db/testing";
import { type SpawnedProcess, spawnProcess } from "@svc/processes";
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
import {
  bucketQuantileMs,
  bucketsBetween,
  type HistogramBuckets,
  scrapeHistogram,
} from "../harness/histogram-scrape.js";
import { percentile } from "../harness/measure.js";
import { benchDatabaseUrl } from "../harness/postgres-url.js";
import { type ServerProcess, startServerProcess } from "../harness/server-process.js";
import { type BenchRow, printTable } from "../harness/table.js";
import { type Nchan, nchanMissing, startNchan } from "./nchan.js";

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
const IDLE_BRIDGES = Number(process.env.BENCH_IDLE_BRIDGES ?? 4000);

/** The peer of every row here: nchan, when Debian's nginx and libnginx-mod-nchan are installed. */
const NCHAN = "nchan (memory only, one worker)";

/**
 * Bridges: deposit-to-delivery latency over SSE and WebSocket at a fixed deposit rate (one
 * instance on the embedded database; one and two instances on PostgreSQL when one is
 * configured; every instance in a process of its own) beside nchan's publish-to-event at the same
 * rate, and the resident memory per idle bridge beside nchan's and a bare node:http event-stream
 * server's, each holding as many connections.
 */
export async function bridgesSuite(): Promise<void> {
  const missing = nchanMissing();
  if (missing) console.log(`\n(nchan rows skipped: ${missing})`);
  const peer = missing ? undefined : NCHAN;
  const latency: BenchRow[] = [];
  if (!missing) {
    const nchan = await startNchan();
    try {
      latency.push(...(await nchanLatency(NCHAN, nchan)));
    } finally {
      await nchan.stop();
    }
  }
  const local = await startInstance();
  try {
    for (const transport of ["sse", "ws"] as const) {
      const name = `${transport}, one instance (PGlite)`;
      latency.push(...(await deliveryLatency(name, local, local, transport, peer)));
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
        const name = `${transport}, one instance (PostgreSQL)`;
        latency.push(...(await deliveryLatency(name, a, a, transport, peer)));
      }
      for (const transport of ["sse", "ws"] as const) {
        const name = `${transport}, A -> B via PostgreSQL`;
        latency.push(...(await deliveryLatency(name, a, b, transport, peer)));
      }
    } finally {
      await a.stop();
      await b.stop();
    }
  }
  printTable(`bridges: deposit-to-delivery at ${DEPOSITS_PER_SECOND} deposits/s`, latency);

  const bare = "bare node:http SSE";
  const memory = [await idleMemory(bare, await childServer("bare-server", "sse-clients"))];
  if (!missing) memory.push(await idleMemory(NCHAN, await nchanServer(), bare));
  const base = peer ?? bare;
  memory.push(
    await idleMemory(
      "SSE bridges (prekey server)",
      await childServer("app-server", "sse-clients"),
      base,
    ),
    await idleMemory(
      "WebSocket bridges (prekey server)",
      await childServer("app-server", "ws-clients"),
      base,
    ),
  );
  const scratch = databaseUrl ? await createTestDatabase(databaseUrl) : undefined;
  try {
    // The embedded database's own memory grows as bridges open (about 24 MiB over the first
    // 4,000, then hardly more): on PostgreSQL the rows show the server's part alone.
    const onPostgres = scratch ? (["SSE", "WebSocket"] as const) : [];
    for (const transport of onPostgres) {
      const clientRole = transport === "SSE" ? "sse-clients" : "ws-clients";
      const server = await childServer("app-server", clientRole, scratch?.url);
      memory.push(
        await idleMemory(`${transport} bridges (prekey server, PostgreSQL)`, server, base),
      );
    }
    printTable(`bridges: resident memory per idle connection (${IDLE_BRIDGES} held)`, memory);

    const many = [await manyBridges(undefined)];
    if (scratch) many.push(await manyBridges(scratch.url));
    printTable("bridges: one instance holding many idle bridges", many, { latency: false });
  } finally {
    await scratch?.drop();
  }
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

/** What a delivery measurement publishes to and listens on. */
interface DeliveryTarget {
  /** Where the prepared requests go, on keep-alive sockets. */
  publishTo: string;
  /** Opens the listeners; each hands every event's data (JSON with a msgId) to `onData`. */
  listen(onData: (json: string) => void): Promise<Array<() => void>>;
  /** The n-th request, prepared before the clock runs. */
  request(n: number): DepositRequest;
  /** Called as the first measured request goes out. */
  measuredStart?(): void;
}

interface Delivered {
  /** Request sent to event received, of each measured message that arrived, sorted. */
  latencies: number[];
  /** Request sent to answer received, of each measured request, sorted. */
  answered: number[];
  measured: number;
  failed: number;
  /** Seconds the measured part took, until the last event or the deadline. */
  elapsed: number;
  /** The rate the requests went out at, warm-up included. */
  requestRate: number;
}

/**
 * Requests at DEPOSITS_PER_SECOND, WARMUP_SECONDS of them unmeasured, then LOAD_SECONDS measured:
 * each measured message timed from its request to its event on a listener.
 */
async function measureDelivery(target: DeliveryTarget): Promise<Delivered> {
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const answered: number[] = [];
  const onData = (json: string) => {
    const { msgId } = JSON.parse(json) as { msgId: string };
    const started = sentAt.get(msgId);
    if (started !== undefined) latencies.push(performance.now() - started);
  };
  const listeners = await target.listen(onData);
  await new Promise((resolve) => setTimeout(resolve, 300));

  const http = keepAliveSockets(target.publishTo, MAX_IN_FLIGHT);
  const warmup = DEPOSITS_PER_SECOND * WARMUP_SECONDS;
  const measured = DEPOSITS_PER_SECOND * LOAD_SECONDS;
  const total = warmup + measured;
  // Prepared ahead, so that the load generator's own work while the clock runs is sending and
  // receiving: on two cores, its CPU would otherwise be taken from the server it measures.
  const requests = Array.from({ length: total }, (_, n) => target.request(n));
  let inFlight = 0;
  let failed = 0;
  // Counted, not kept: holding every request's promise until the end made each of the load
  // generator's own young-generation collections copy them all (3 ms pauses inside the window).
  let settled = 0;
  let allSettled = () => {};
  const done = new Promise<void>((resolve) => {
    allSettled = resolve;
  });
  const send = async (n: number) => {
    const counted = n >= warmup;
    try {
      const ms = await publish(http, requests[n] as DepositRequest, counted ? sentAt : undefined);
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
    if (n === warmup) target.measuredStart?.();
    void send(n);
  }
  await done;
  http.close();
  const requestRate = total / ((performance.now() - started) / 1000);
  const deadline = performance.now() + 10_000;
  while (latencies.length < measured - failed && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const elapsed = (performance.now() - started) / 1000 - WARMUP_SECONDS;
  for (const close of listeners) close();
  latencies.sort((x, y) => x - y);
  answered.sort((x, y) => x - y);
  return { latencies, answered, measured, failed, elapsed, requestRate };
}

/** A delivery row and, below it, the row of its requests' own round trips. */
function deliveryRows(
  name: string,
  requestsName: string,
  delivered: Delivered,
  what: { requests: string; floor: string; baseline: string | undefined },
): BenchRow[] {
  const { latencies, answered, measured, failed, elapsed, requestRate } = delivered;
  return [
    {
      name,
      opsPerSec: latencies.length / elapsed,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      baseline: what.baseline,
      compare: "p99Ms",
      note: `${latencies.length}/${measured} delivered after ${WARMUP_SECONDS} s of warm-up, ${failed} ${what.requests} failed, ${what.requests} at ${Math.round(requestRate)}/s`,
    },
    {
      name: requestsName,
      opsPerSec: answered.length / elapsed,
      p50Ms: percentile(answered, 0.5),
      p99Ms: percentile(answered, 0.99),
      note: `same run: ${what.floor}`,
    },
  ];
}

/** Deposits to RECIPIENTS addresses on `depositTo`, each with a bridge on `deliverFrom`. */
async function deliveryLatency(
  name: string,
  depositTo: ServerProcess,
  deliverFrom: ServerProcess,
  transport: "sse" | "ws",
  peer: string | undefined,
): Promise<BenchRow[]> {
  const run = `${transport}-${Date.now().toString(36)}`;
  const owner = party("recipient");
  const sender = party("sender");
  const recipients = Array.from({ length: RECIPIENTS }, (_, i) => `bench-${run}:${i}`);
  for (const address of recipients) await register(depositTo.url, address, owner);
  let stagesBefore: Promise<HistogramBuckets> | undefined;
  const delivered = await measureDelivery({
    measuredStart() {
      stagesBefore = scrapeHistogram(depositTo.url, DEPOSIT_STAGES, "stage");
    },
    publishTo: depositTo.url,
    listen: (onData) =>
      Promise.all(
        recipients.map((address) =>
          transport === "sse"
            ? openSse(bridgeUrl(deliverFrom.url, "stream", owner, address), onData)
            : openWs(bridgeUrl(deliverFrom.url, "ws", owner, address), onData),
        ),
      ),
    request: (n) => depositRequest(recipients[n % RECIPIENTS] ?? "", sender, n),
  });
  const stagesAfter = await scrapeHistogram(depositTo.url, DEPOSIT_STAGES, "stage");
  const depositsName = `  deposit answer, ${name}`;
  return [
    ...deliveryRows(name, depositsName, delivered, {
      requests: "deposits",
      floor: "the deposit's own HTTP round trip, the floor under its delivery",
      baseline: peer ?? depositsName,
    }),
    ...stageRows(await (stagesBefore ?? stagesAfter), stagesAfter, delivered.elapsed),
  ];
}

/**
 * The deposit's stages inside the server over the measured requests, from its own histogram:
 * where the answer's time goes before the envelope can be handed to a bridge (at commit, the end
 * of `store`). What the answer takes beyond their sum is HTTP, the event loop's queue and the
 * client.
 */
function stageRows(before: HistogramBuckets, after: HistogramBuckets, elapsed: number): BenchRow[] {
  return ["read", "checks", "store"].map((stage) => {
    const buckets = bucketsBetween(before, after, stage);
    return {
      name: `    server stage: ${stage}`,
      opsPerSec: (buckets.at(-1)?.count ?? 0) / elapsed,
      p50Ms: bucketQuantileMs(buckets, 0.5),
      p99Ms: bucketQuantileMs(buckets, 0.99),
      note: STAGE_NOTES[stage],
    };
  });
}

const DEPOSIT_STAGES = "svc_inbox_deposit_stage_seconds";
const STAGE_NOTES: Record<string, string> = {
  read: "same run, inside the server: body read and parsed (from its histogram's buckets)",
  checks: "same run: schema, Ed25519 signature, freshness, msgId",
  store: "same run: the deposit statement until its commit, a wait for a batch included",
};

/** The same load on nchan: publishes to RECIPIENTS channels, each with an EventSource. */
async function nchanLatency(name: string, nchan: Nchan): Promise<BenchRow[]> {
  const channels = Array.from({ length: RECIPIENTS }, (_, i) => `bench-${i}`);
  const delivered = await measureDelivery({
    publishTo: nchan.url,
    listen: (onData) =>
      Promise.all(channels.map((channel) => openSse(nchan.subscribeUrl(channel), onData))),
    request: (n) => {
      const msgId = `${Date.now().toString(36)}-${n}`;
      // The size of a deposit's envelope event: a 64-byte ciphertext in base64 and its names.
      const padding = "x".repeat(160);
      return {
        msgId,
        path: nchan.publishPath(channels[n % RECIPIENTS] ?? ""),
        body: JSON.stringify({ msgId, padding }),
      };
    },
  });
  return deliveryRows(name, `  publish answer, ${name}`, delivered, {
    requests: "publishes",
    floor: "the publish request's own HTTP round trip",
    baseline: undefined,
  });
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

/** Sends a prepared request (a deposit, a publish); answers its request-to-answer time. */
async function publish(
  http: KeepAliveSockets,
  { msgId, path, body }: DepositRequest,
  sentAt: Map<string, number> | undefined,
): Promise<number> {
  const sent = performance.now();
  sentAt?.set(msgId, sent);
  const res = await send(http, { method: "POST", path, body });
  if (res.status < 200 || res.status > 299) throw new Error(`${path} answered ${res.status}`);
  return performance.now() - sent;
}

/** An SSE client on node:http (fetch's web streams would add their own cost to every event). */
async function openSse(url: string, onData: (json: string) => void): Promise<() => void> {
  const res = await new Promise<IncomingMessage>((resolve, reject) =>
    get(url, { headers: { accept: "text/event-stream" } }, resolve).once("error", reject),
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

function spawnChild(args: string[], flags: string[] = [], { allFiles = false } = {}) {
  const options = { inheritEnv: true, output: "inherit", ipc: true } as const;
  const node = [process.execPath, ...process.execArgv, ...flags, CHILD, ...args];
  // With allFiles, the child may open as many files as the hard limit allows: its soft limit
  // (often 1,024) is raised first by the shell, which then becomes the child.
  const child = allFiles
    ? spawnProcess("sh", ["-c", RAISE_SOFT_FILE_LIMIT, "sh", ...node], options)
    : spawnProcess(node[0] as string, node.slice(1), options);
  const next = async () => (await child.nextMessage()) as Record<string, number>;
  return { child, next };
}

/** A server holding idle connections: where they go and how much memory it has. */
interface HeldServer {
  clientRole: "sse-clients" | "ws-clients";
  /** What each connection opens. */
  url: string;
  /** Its resident set now, in bytes, read after a second of quiet. */
  rss(): Promise<number>;
  stop(): Promise<void>;
}

/** A server of bridges-child.ts; the prekey server gets an inbox address to hold bridges on. */
async function childServer(
  role: "app-server" | "bare-server",
  clientRole: HeldServer["clientRole"],
  databaseUrl?: string,
): Promise<HeldServer> {
  const server = spawnChild(databaseUrl ? [role, databaseUrl] : [role], SERVER_FLAGS);
  const { port } = await server.next();
  const base = `http://127.0.0.1:${port}`;
  let url = `${base}/idle`;
  if (role === "app-server") {
    const owner = party("idle");
    await register(base, "bench:idle", owner);
    url = bridgeUrl(base, clientRole === "ws-clients" ? "ws" : "stream", owner, "bench:idle");
  }
  return {
    clientRole,
    url,
    rss: () => residentSet(server),
    async stop() {
      await server.child.stop("SIGKILL");
    },
  };
}

/** A bridges-child.ts server's resident set, read after a second of quiet. */
async function residentSet(server: ReturnType<typeof spawnChild>): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  server.child.send("rss");
  return (await server.next()).rss ?? 0;
}

/** nchan, its subscribers all on one channel (as the bridges are all of one address). */
async function nchanServer(): Promise<HeldServer> {
  const nchan = await startNchan();
  return {
    clientRole: "sse-clients",
    url: nchan.subscribeUrl("idle"),
    async rss() {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return nchan.residentBytes();
    },
    stop: () => nchan.stop(),
  };
}

/**
 * Resident memory per idle connection: the growth of the server's RSS from FIRST_HELD held
 * connections to IDLE_BRIDGES held, per connection added. The note also gives the growth over
 * all of them, one-time costs included.
 */
async function idleMemory(name: string, server: HeldServer, baseline?: string): Promise<BenchRow> {
  const clients: SpawnedProcess[] = [];
  try {
    const open = async (count: number) => {
      const opener = spawnChild([server.clientRole, server.url, String(count)]);
      clients.push(opener.child);
      const started = performance.now();
      const { opened = 0 } = await opener.next();
      return { opened, perSecond: opened / ((performance.now() - started) / 1000) };
    };
    const idle = await server.rss();
    const first = await open(FIRST_HELD);
    const held = await server.rss();
    const rest = await open(IDLE_BRIDGES - FIRST_HELD);
    const full = await server.rss();
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
    await server.stop();
  }
}

// ------------------------------------------------------------------ many bridges

/** The scale: one instance holding this many idle bridges, half SSE, half WebSocket. */
const MANY_BRIDGES = Number(process.env.BENCH_MANY_BRIDGES ?? 100_000);
/** Connections one client process opens, each process from a loopback address of its own. */
const PER_CLIENT = 10_000;
const RAISE_SOFT_FILE_LIMIT = 'ulimit -S -n "$(ulimit -H -n)" && exec "$@"';
/** Files the server keeps open besides its connections (its database, modules, pipes). */
const OTHER_FILES = 200;
const GIB = 1024 ** 3;

/** The hard limit on open files of the processes started from here. */
function hardFileLimit(): number {
  const text = execFileSync("sh", ["-c", "ulimit -H -n"], { encoding: "utf8" }).trim();
  return text === "unlimited" ? Number.POSITIVE_INFINITY : Number(text);
}

/**
 * One prekey server holding MANY_BRIDGES idle bridges, half SSE and half WebSocket, with its soft
 * file limit (and each client's) raised to the hard one; fewer when the hard limit is lower than
 * that needs, which the row says. The bound: 100,000 within 1 GiB.
 */
async function manyBridges(databaseUrl: string | undefined): Promise<BenchRow> {
  const limit = hardFileLimit();
  const count = Math.floor(Math.min(MANY_BRIDGES, limit - OTHER_FILES) / 2) * 2;
  const args = databaseUrl ? ["app-server", databaseUrl] : ["app-server"];
  const server = spawnChild(args, SERVER_FLAGS, { allFiles: true });
  const clients: SpawnedProcess[] = [];
  try {
    const { port } = await server.next();
    const base = `http://127.0.0.1:${port}`;
    const owner = party("idle");
    await register(base, "bench:idle", owner);
    const idle = await residentSet(server);
    const started = performance.now();
    let opened = 0;
    for (const [role, kind] of [
      ["sse-clients", "stream"],
      ["ws-clients", "ws"],
    ] as const) {
      for (let left = count / 2; left > 0; left -= PER_CLIENT) {
        const from = `127.0.0.${10 + clients.length}`;
        const url = bridgeUrl(base, kind, owner, "bench:idle");
        const opener = spawnChild([role, url, String(Math.min(PER_CLIENT, left)), from], [], {
          allFiles: true,
        });
        clients.push(opener.child);
        opened += (await opener.next()).opened ?? 0;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const full = await residentSet(server);
    const capped =
      count < MANY_BRIDGES
        ? `; capped at ${count} by the hard file limit (${limit}), see docs/deploy.md`
        : "";
    return {
      name: `${count} idle bridges, half SSE, half WebSocket (${databaseUrl ? "PostgreSQL" : "PGlite"})`,
      opsPerSec: opened / seconds,
      mib: full / 1024 ** 2,
      note: `${opened} held: ${((full / GIB) * 100).toFixed(0)}% of 1 GiB (target: 100,000 within it); ${(idle / 1024 ** 2).toFixed(0)} MiB before, ${((full - idle) / Math.max(opened, 1) / 1024).toFixed(1)} KiB each${capped}`,
    };
  } finally {
    for (const client of clients) client.child.kill();
    await server.child.stop("SIGKILL");
  }
}
