import { createTestDatabase } from "@svc/db/testing";
import { overHttp } from "@svc/test-client";
import { keepAliveSockets } from "@svc/test-client/node";
import { type LoadSamples, sampleLoad, summarize } from "../harness/measure.js";
import { benchDatabaseUrl } from "../harness/postgres-url.js";
import { startServerProcess } from "../harness/server-process.js";
import { type BenchRow, printTable } from "../harness/table.js";
import { PrekeyQueues } from "./fill-queues.js";

/** BENCH_QUICK=1: short rounds over short queues, for trying the suite, not for numbers to quote. */
const QUICK = process.env.BENCH_QUICK === "1";
const CONCURRENCY = 50;
/** Rounds the two rows alternate over; each row's samples of all rounds are pooled. */
const ROUNDS = 5;
const ROUND_MS = QUICK ? 400 : 1000;
const ADDRESSES = QUICK ? 20 : 80;
/** Per queue: enough that every measured fetch pops a one-time prekey of each kind it has. */
const KEYS_PER_ADDRESS = QUICK ? 300 : 1000;
/** The target: a bundle with a KEM prekey within 1.3 times the classic bundle's p99. */
const TARGET_RATIO = 1.3;

const SERVER_ENV = {
  SVC_RATE_LIMIT: "off",
  SVC_LOG_LEVEL: "silent",
  SVC_KT: "off",
  SVC_INBOX: "off",
};

/**
 * Bundle fetches of classic identities (X3DH: no KEM keys) beside fetches of post-quantum ones
 * (PQXDH: each bundle pops a one-time ML-KEM-1024 prekey too), from one server in its own process,
 * in the same run: p99 latency and bytes per answer, and their ratio.
 */
export async function kemBundlesSuite(): Promise<void> {
  const url = benchDatabaseUrl();
  const database = url ? await createTestDatabase(url) : undefined;
  try {
    const server = await startServerProcess(
      database ? { ...SERVER_ENV, DATABASE_URL: database.url } : SERVER_ENV,
    );
    try {
      const where = database ? "PostgreSQL" : "PGlite in memory";
      printTable(
        `prekeys: bundle fetch with and without an ML-KEM prekey, ${where} (server in its own process)`,
        await rows(server.url),
      );
    } finally {
      await server.stop();
    }
  } finally {
    await database?.drop();
  }
}

async function rows(url: string): Promise<BenchRow[]> {
  const queues = new PrekeyQueues(overHttp(url));
  const classic = await queues.fill("classic", ADDRESSES, KEYS_PER_ADDRESS);
  const pq = await queues.fill("pq", ADDRESSES, KEYS_PER_ADDRESS, { kem: true });

  const http = keepAliveSockets(url, CONCURRENCY);
  const fetcher = (addresses: string[]) => {
    const tally = { fetches: 0, bytes: 0, oneTimeKem: 0 };
    const fetchBundle = async (worker: number) => {
      const address = addresses[(worker + tally.fetches++) % addresses.length];
      const res = await http(`/v1/keys/bundle/${address}`, { method: "GET" });
      if (res.status !== 200) throw new Error(`bundle fetch answered ${res.status}`);
      tally.bytes += Buffer.byteLength(res.body);
      const kem = (JSON.parse(res.body) as { kemPreKey?: { lastResort: boolean } }).kemPreKey;
      if (kem && !kem.lastResort) tally.oneTimeKem++;
    };
    return { tally, fetchBundle };
  };
  const without = fetcher(classic);
  const withKem = fetcher(pq);
  const samples: Record<"without" | "withKem", LoadSamples[]> = { without: [], withKem: [] };
  const load = { concurrency: CONCURRENCY, durationMs: ROUND_MS };
  // Alternating short rounds, so that a drift in the machine's speed favours neither row.
  for (let round = 0; round < ROUNDS; round++) {
    samples.without.push(await sampleLoad(without.fetchBundle, load));
    samples.withKem.push(await sampleLoad(withKem.fetchBundle, load));
  }
  http.close();

  const classicResult = summarize(samples.without);
  const kemResult = summarize(samples.withKem);
  const ratio = kemResult.p99Ms / classicResult.p99Ms;
  const bytesEach = (tally: { fetches: number; bytes: number }) =>
    Math.round(tally.bytes / Math.max(1, tally.fetches));
  console.log(
    `\nbundle p99 with a KEM prekey / classic p99: ${ratio.toFixed(2)}x (target <= ${TARGET_RATIO}x); ` +
      `bytes per answer ${bytesEach(withKem.tally)} / ${bytesEach(without.tally)} = ` +
      `${(bytesEach(withKem.tally) / bytesEach(without.tally)).toFixed(2)}x`,
  );
  const classicName = "bundle fetch, classic identity (no KEM keys)";
  return [
    {
      name: classicName,
      ...classicResult,
      columns: { "body bytes": String(bytesEach(without.tally)) },
      note: `${CONCURRENCY} keep-alive clients, ${ROUNDS} rounds alternating with the next row`,
    },
    {
      name: "bundle fetch, PQXDH identity (one-time ML-KEM prekey)",
      ...kemResult,
      baseline: classicName,
      compare: "p99Ms",
      columns: { "body bytes": String(bytesEach(withKem.tally)) },
      note: `${Math.round((withKem.tally.oneTimeKem / Math.max(1, withKem.tally.fetches)) * 100)}% carried a one-time KEM prekey${QUICK ? "; BENCH_QUICK" : ""}`,
    },
  ];
}
