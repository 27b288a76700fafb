import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Storage } from "@svc/db";
import { loadConfig, startServer } from "@svc/prekey-server";
import { overHttp } from "@svc/test-client";
import { keepAliveSockets } from "@svc/test-client/node";
import { type LoadResult, runLoad } from "../harness/measure.js";
import { type BenchRow, printTable } from "../harness/table.js";
import { PrekeyQueues } from "../keys/fill-queues.js";
import { type AnswerFloor, serveAnswers } from "./answer-floor.js";

/** Identity changes offered beside the bundle fetches of the "log growing" rows. */
const REGISTERS_PER_SECOND = 50;
/** Rounds of each measurement, key transparency off and on in turn; each figure's median counts. */
const ROUNDS = 5;
const ROUND_MS = 2000;

type Kt = "off" | "on";

/** One prekey server with key transparency off or on, its bundle addresses filled. */
interface Served {
  /** The body of one bundle answer, as the server sent it. */
  answer: string;
  fetchBundles(concurrency: number): Promise<LoadResult>;
  register(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Bundle fetches over HTTP from a server with key transparency off and one with it on, both up
 * at once on the same database and measured in alternating rounds, so that neither gets the
 * quieter half of the run (each figure the median of its rounds): p99 with the proof against
 * p99 without, at c=1, at c=16, and at c=16 while identities are registered beside (the log
 * growing, so proofs are made afresh). Beside them, one answer of each served by a bare
 * node:http server at c=1: what the proof's bytes alone cost to send and read.
 */
export async function bundleProofLatency(backend: string, storage: Storage): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "svc-bench-kt-"));
  const servers = new Map<Kt, Served>();
  let floor: AnswerFloor | undefined;
  try {
    for (const kt of ["off", "on"] as const) servers.set(kt, await serve(kt, storage, dataDir));
    const answers = new Map<string, string | Uint8Array>();
    for (const [kt, served] of servers) {
      // As the bundle route sends them: a string without the proof, bytes with it.
      answers.set(`/${kt}`, kt === "off" ? served.answer : Buffer.from(served.answer));
    }
    floor = await serveAnswers(answers);
    const rounds = new Map<string, LoadResult[]>();
    const record = (key: string, result: LoadResult) =>
      rounds.set(key, [...(rounds.get(key) ?? []), result]);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [kt, served] of servers) {
        for (const concurrency of [1, 16]) {
          record(`${kt}:${concurrency}`, await served.fetchBundles(concurrency));
        }
        record(`${kt}:floor`, await floor.fetch(`/${kt}`, 1, ROUND_MS));
        const { result, registersPerSecond } = await whileRegistering(served);
        record(`${kt}:growing`, result);
        record(`${kt}:registers`, { opsPerSec: registersPerSecond, p50Ms: 0, p99Ms: 0 });
      }
    }
    printTable(
      `Bundle fetch with and without key transparency on ${backend}`,
      rows(rounds, servers),
    );
  } finally {
    for (const served of servers.values()) await served.stop();
    await floor?.close();
    await storage.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function serve(kt: Kt, storage: Storage, dataDir: string): Promise<Served> {
  const config = loadConfig({
    SVC_PORT: "0",
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: "silent",
    SVC_RATE_LIMIT: "off",
    SVC_INBOX: "off",
    SVC_KT: kt,
  });
  const server = await startServer(config, { storage });
  const client = new PrekeyQueues(overHttp(server.url));
  const addresses = await client.fill(`kt-${kt}`, 40, 300);
  const http = keepAliveSockets(server.url, 16);
  let fetched = 0;
  let registered = 0;
  const fetchOne = async () => {
    const address = addresses[fetched++ % addresses.length];
    const res = await http(`/v1/keys/bundle/${address}`, { method: "GET" });
    const carriesProof = res.body.includes('"ktProof"');
    if (res.status !== 200 || carriesProof !== (kt === "on")) {
      throw new Error(`bundle fetch answered ${res.status} (ktProof: ${carriesProof})`);
    }
    return res.body;
  };
  // Steady state: each address's first proof (and the server's first requests) out of the timed
  // runs, which would otherwise hold one cold proof per address in their p99.
  for (let i = 1; i < addresses.length; i++) await fetchOne();
  return {
    answer: await fetchOne(),
    fetchBundles: (concurrency) => runLoad(fetchOne, { concurrency, durationMs: ROUND_MS }),
    register: () => client.register(`kt-new-${kt}-${registered++}`, 0),
    async stop() {
      http.close();
      await server.stop();
    },
  };
}

/** c=16 fetches while new identities are registered at a fixed pace beside them. */
async function whileRegistering(
  served: Served,
): Promise<{ result: LoadResult; registersPerSecond: number }> {
  let changing = true;
  let changes = 0;
  const interval = 1000 / REGISTERS_PER_SECOND;
  const registering = (async () => {
    for (let next = performance.now(); changing; next += interval) {
      await served.register();
      changes++;
      await sleep(Math.max(0, next + interval - performance.now()));
    }
  })();
  const startedAt = performance.now();
  const result = await served.fetchBundles(16);
  changing = false;
  await registering;
  return { result, registersPerSecond: changes / ((performance.now() - startedAt) / 1000) };
}

function rows(rounds: Map<string, LoadResult[]>, servers: Map<Kt, Served>): BenchRow[] {
  const at = (key: string) => medians(rounds.get(key) ?? []);
  const pair = (
    key: string,
    [withoutName, withName]: [string, string],
    note: (kt: Kt) => string,
  ): BenchRow[] => {
    const without = at(`off:${key}`);
    const withProof = at(`on:${key}`);
    const ratio = `p99 ${(withProof.p99Ms / without.p99Ms).toFixed(2)}x of without`;
    return [
      { name: withoutName, ...without, note: `SVC_KT=off${note("off")}` },
      { name: withName, ...withProof, baseline: withoutName, note: `${ratio}${note("on")}` },
    ];
  };
  const bundles = (label: string): [string, string] => [
    `bundle without proof${label}`,
    `bundle with ktProof${label}`,
  ];
  const registers = (kt: Kt) => `; ~${Math.round(at(`${kt}:registers`).opsPerSec)} registers/s`;
  const ofRounds = `; medians of ${ROUNDS} alternating rounds`;
  const size = (kt: Kt) => `; ${Buffer.byteLength(servers.get(kt)?.answer ?? "")} bytes`;
  return [
    ...pair("1", bundles(" (HTTP, c=1)"), () => ofRounds),
    ...pair(
      "floor",
      ["answer without proof, bare node:http (c=1)", "answer with ktProof, bare node:http (c=1)"],
      (kt) => `${size(kt)}${ofRounds}`,
    ),
    ...pair("16", bundles(" (HTTP, c=16)"), () => ofRounds),
    ...pair(
      "growing",
      bundles(", registers beside (HTTP, c=16)"),
      (kt) => `${registers(kt)}${ofRounds}`,
    ),
  ];
}

/**
 * Each figure's median over the rounds: a p99 of one 2-second round at c=1 (a fraction of a
 * millisecond) moves with every pause of the machine, and its median across rounds much less.
 */
function medians(rounds: LoadResult[]): LoadResult {
  const of = (figure: keyof LoadResult) => {
    const sorted = rounds.map((round) => round[figure]).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? 0;
  };
  return { opsPerSec: of("opsPerSec"), p50Ms: of("p50Ms"), p99Ms: of("p99Ms") };
}
