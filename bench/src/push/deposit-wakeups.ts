import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { encodeBase64, encodeBase64Url } from "@svc/canonical";
import {
  InboxClient,
  overHttp,
  type Party,
  send,
  signedBodyBy,
  party as testParty,
} from "@svc/test-client";
import { keepAliveSockets, nodeSigner } from "@svc/test-client/node";
import { generateVapidKeys } from "@svc/web-push";
import { percentile } from "../harness/measure.js";
import { type ServerProcess, startServerProcess } from "../harness/server-process.js";
import { type BenchRow, printTable } from "../harness/table.js";

/** BENCH_QUICK=1: shorter runs and fewer addresses, for trying the suite. */
const QUICK = process.env.BENCH_QUICK === "1";
const SUBSCRIBED = 1000;
const DEPOSITS_PER_SECOND = QUICK ? 200 : 400;
const WARMUP_SECONDS = QUICK ? 2 : 5;
const LOAD_SECONDS = QUICK ? 4 : 20;
/**
 * Turns the push-off and push-on servers take over LOAD_SECONDS: short turns, so that a pause of
 * the shared machine falls on both rows alike rather than on one row's whole turn.
 */
const ROUNDS = QUICK ? 4 : 20;
const MAX_IN_FLIGHT = 64;
const WAKE_UPS = QUICK ? 300 : 1000;
const WAKE_UPS_PER_SECOND = 100;
/** Wake-ups before the measured ones, so that no figure pays for a cold send path (JIT). */
const WARMUP_WAKE_UPS = 200;

/**
 * Web Push wake-ups on the server: deposits with push off beside deposits to 1,000 addresses
 * each subscribed at a push service that never answers (the wake-ups hang in the dispatcher's
 * queue, off the deposits' path), and the time from a deposit's request to its wake-up's arrival
 * at a local push service that answers at once. One server in a process of its own on the
 * embedded database for each row.
 */
export async function pushWakeUpsSuite(): Promise<void> {
  const hanging = await startPushService("hang");
  const answering = await startPushService("answer");
  try {
    const deposits = await depositRows(hanging);
    const wakeUp = await wakeUpLatency(answering);
    printTable(
      `push: deposits at ${DEPOSITS_PER_SECOND}/s to ${SUBSCRIBED} addresses; wake-ups at ${WAKE_UPS_PER_SECOND}/s`,
      [...deposits, wakeUp],
    );
  } finally {
    await hanging.close();
    await answering.close();
  }
}

// ------------------------------------------------------------------ local push services

interface PushService {
  url: string;
  /** performance.now() of each request's arrival, by path. */
  arrivals: Map<string, number>;
  requests(): number;
  close(): Promise<void>;
}

/** A push service on 127.0.0.1 that answers 201 at once, or never answers. */
async function startPushService(mode: "hang" | "answer"): Promise<PushService> {
  const arrivals = new Map<string, number>();
  let requests = 0;
  const server: Server = createServer((req: IncomingMessage, res) => {
    requests++;
    arrivals.set(req.url ?? "", performance.now());
    req.resume();
    if (mode === "answer") req.on("end", () => res.writeHead(201).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    requests: () => requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Subscription keys a browser would give (never used to decrypt here). */
const SUBSCRIPTION_KEYS = {
  p256dh: encodeBase64Url(generateVapidKeys().publicKey),
  auth: encodeBase64Url(new Uint8Array(16).fill(7)),
};

// ------------------------------------------------------------------ servers and addresses

const party = (label: string): Party => testParty(`bench-push:${label}`, nodeSigner);
const owner = party("owner");
const sender = party("sender");

async function startInstance(env: Record<string, string>): Promise<ServerProcess> {
  return startServerProcess({
    SVC_LOG_LEVEL: "silent",
    SVC_KT: "off",
    SVC_RATE_LIMIT: "off",
    SVC_PUSH_ALLOW_PRIVATE_ENDPOINTS: "on",
    ...env,
  });
}

/** Registers `addresses` (and subscribes each at `service`, path = address). */
async function prepare(server: ServerProcess, addresses: string[], service?: PushService) {
  const client = new InboxClient(overHttp(server.url), Date.now);
  const path = "/v1/push/subscriptions";
  for (const address of addresses) {
    const registered = await client.register(address, owner);
    if (registered.status !== 200) throw new Error(`register answered ${registered.status}`);
    if (service === undefined) continue;
    const subscription = { endpoint: `${service.url}/${address}`, keys: SUBSCRIPTION_KEYS };
    const body = client.signed("POST", path, { address, subscription }, owner);
    const subscribed = await client.send("POST", path, body);
    if (subscribed.status !== 200) throw new Error(`subscribe answered ${subscribed.status}`);
  }
}

interface DepositRequest {
  path: string;
  body: string;
}

function depositRequest(address: string, n: number): DepositRequest {
  const ciphertext = new Uint8Array(64);
  ciphertext[0] = 0x02;
  new DataView(ciphertext.buffer).setFloat64(1, Math.random());
  new DataView(ciphertext.buffer).setUint32(9, n);
  const path = `/v1/inbox/${address}`;
  const fields = {
    msgId: createHash("sha256").update(ciphertext).digest("hex"),
    ciphertext: encodeBase64(ciphertext),
    expiresAt: Date.now() + 3_600_000,
    senderPublicKey: sender.publicKey,
    signedAt: Date.now(),
  };
  return { path, body: JSON.stringify(signedBodyBy(sender.signer, "POST", path, fields)) };
}

/**
 * Deposits at `rate` per second (open loop, at most MAX_IN_FLIGHT out), signed ahead so that the
 * load generator's own work is sending; calls `sent(n, at)` as each leaves and answers the
 * request-to-answer times of those from `measuredFrom` on.
 */
async function depositAtRate(
  server: ServerProcess,
  addresses: string[],
  total: number,
  rate: number,
  measuredFrom: number,
  sent?: (n: number, at: number) => void,
): Promise<{ answered: number[]; failed: number; seconds: number }> {
  const http = keepAliveSockets(server.url, MAX_IN_FLIGHT);
  const requests = Array.from({ length: total }, (_, n) =>
    depositRequest(addresses[n % addresses.length] as string, n),
  );
  const answered: number[] = [];
  let failed = 0;
  let inFlight = 0;
  let settled = 0;
  let allSettled = () => {};
  const done = new Promise<void>((resolve) => {
    allSettled = resolve;
  });
  const one = async (n: number) => {
    const at = performance.now();
    sent?.(n, at);
    try {
      const res = await send(http, { method: "POST", ...(requests[n] as DepositRequest) });
      if (res.status !== 200) throw new Error(`deposit answered ${res.status}`);
      if (n >= measuredFrom) answered.push(performance.now() - at);
    } catch {
      if (n >= measuredFrom) failed++;
    } finally {
      inFlight--;
      if (++settled === total) allSettled();
    }
  };
  const started = performance.now();
  let measuredStart = started;
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    while (inFlight >= MAX_IN_FLIGHT) await new Promise((resolve) => setTimeout(resolve, 1));
    if (n === measuredFrom) measuredStart = performance.now();
    inFlight++;
    void one(n);
  }
  await done;
  http.close();
  return { answered, failed, seconds: (performance.now() - measuredStart) / 1000 };
}

// ------------------------------------------------------------------ rows

/**
 * Deposit request-to-answer at a fixed rate over SUBSCRIBED addresses, on three servers at once:
 * push off, push on with every address subscribed at `hanging`, and push off again. After a
 * warm-up of each, they take turns, ROUNDS rounds of LOAD_SECONDS / ROUNDS each (the order
 * rotating), so that a drift of the machine's speed, large on a shared two-core VM, falls on every
 * row alike. The second push-off server shows how far two identical servers land apart in the
 * same run: what the push-on row's ratio is to be read against.
 */
async function depositRows(hanging: PushService): Promise<BenchRow[]> {
  const roles: Array<{
    name: string;
    env: Record<string, string>;
    subscribeAt?: PushService;
    note?: string;
  }> = [
    { name: "deposit, push off", env: { SVC_PUSH: "off" } },
    {
      name: `deposit, push on, ${SUBSCRIBED} subscriptions hanging`,
      env: {},
      subscribeAt: hanging,
    },
    {
      name: "deposit, push off, a second server",
      env: { SVC_PUSH: "off" },
      note: "; the same server as the first row: the bench's own spread",
    },
  ];
  const servers: ServerProcess[] = [];
  try {
    for (const role of roles) servers.push(await startInstance(role.env));
    const addresses = Array.from({ length: SUBSCRIBED }, (_, i) => `bench-push-${i}:1`);
    for (const [i, role] of roles.entries()) {
      await prepare(servers[i] as ServerProcess, addresses, role.subscribeAt);
    }
    const warmup = DEPOSITS_PER_SECOND * WARMUP_SECONDS;
    for (const server of servers) {
      await depositAtRate(server, addresses, warmup, DEPOSITS_PER_SECOND, warmup);
    }
    const perRound = Math.round((DEPOSITS_PER_SECOND * LOAD_SECONDS) / ROUNDS);
    const measured = servers.map(() => ({ answered: [] as number[], failed: 0, seconds: 0 }));
    const before = hanging.requests();
    for (let round = 0; round < ROUNDS; round++) {
      for (let turn = 0; turn < servers.length; turn++) {
        const i = (round + turn) % servers.length;
        const server = servers[i] as ServerProcess;
        const run = await depositAtRate(server, addresses, perRound, DEPOSITS_PER_SECOND, 0);
        const into = measured[i] as (typeof measured)[0];
        into.answered.push(...run.answered);
        into.failed += run.failed;
        into.seconds += run.seconds;
      }
    }
    const hung = hanging.requests() - before;
    return roles.map((role, i): BenchRow => {
      const { answered, failed, seconds } = measured[i] as (typeof measured)[0];
      answered.sort((x, y) => x - y);
      const note = role.subscribeAt
        ? `; ${hung} wake-up requests made meanwhile, left hanging`
        : (role.note ?? "");
      return {
        name: role.name,
        opsPerSec: answered.length / seconds,
        p50Ms: percentile(answered, 0.5),
        p99Ms: percentile(answered, 0.99),
        note: `${answered.length} measured in ${ROUNDS} rounds taking turns with the other rows, after ${WARMUP_SECONDS} s of warm-up; ${failed} failed${note}`,
        // Every row after the first is read against the first.
        ...(i > 0 ? { baseline: roles[0]?.name, compare: "p99Ms" as const } : {}),
      };
    });
  } finally {
    for (const server of servers) await server.stop();
  }
}

/** A deposit's request to its wake-up's arrival: one deposit per subscribed address. */
async function wakeUpLatency(service: PushService): Promise<BenchRow> {
  const server = await startInstance({});
  try {
    const total = WARMUP_WAKE_UPS + WAKE_UPS;
    const addresses = Array.from({ length: total }, (_, i) => `bench-wake-${i}:1`);
    await prepare(server, addresses, service);
    const sentAt: number[] = [];
    const { failed, answered } = await depositAtRate(
      server,
      addresses,
      total,
      WAKE_UPS_PER_SECOND,
      WARMUP_WAKE_UPS,
      (n, at) => {
        sentAt[n] = at;
      },
    );
    const deadline = performance.now() + 15_000;
    while (service.arrivals.size < total - failed && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const latencies = addresses
      .slice(WARMUP_WAKE_UPS)
      .map(
        (address, i) =>
          (service.arrivals.get(`/${address}`) ?? Number.NaN) - (sentAt[WARMUP_WAKE_UPS + i] ?? 0),
      )
      .filter((ms) => !Number.isNaN(ms))
      .sort((a, b) => a - b);
    answered.sort((a, b) => a - b);
    return {
      name: "wake-up: deposit request -> push service receipt",
      opsPerSec: WAKE_UPS_PER_SECOND,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      note: `${latencies.length}/${WAKE_UPS} arrived after ${WARMUP_WAKE_UPS} of warm-up, ${failed} deposits failed; deposit answer p99 ${percentile(answered, 0.99).toFixed(2)} ms (the floor under it)`,
    };
  } finally {
    await server.stop();
  }
}
