import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Storage } from "@svc/db";
import { loadConfig, startServer } from "@svc/prekey-server";
import { overHttp } from "@svc/test-client";
import { keepAliveSockets } from "@svc/test-client/node";
import { type LoadSamples, sampleLoad, summarize } from "../harness/measure.js";
import { type BenchRow, printTable } from "../harness/table.js";
import { PrekeyQueues } from "../keys/fill-queues.js";
import { type AnswerFloor, serveAnswers } from "./answer-floor.js";

/** Writes offered beside the bundle fetches of the "beside" rows, new identities or rotations. */
const WRITES_PER_SECOND = 50;
/** Addresses whose signed prekeys the rotation rows replace, in turn. */
const ROTATED_ADDRESSES = 50;
/** Rounds of each measurement, key transparency off and on in turn; each figure pools them. */
const ROUNDS = 10;
const ROUND_MS = 1500;

type Kt = "off" | "on";

/** One prekey server with key transparency off or on, its bundle addresses filled. */
interface Served {
  /** The body of one bundle answer, as the server sent it. */
  answer: string;
  fetchBundles(concurrency: number): Promise<LoadSamples>;
  /** Registers a new identity: with key transparency on, a leaf appended to the log. */
  register(): Promise<void>;
  /** Registers a known identity again with a new signed prekey: the log does not change. */
  rotate(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Bundle fetches over HTTP from a server with key transparency off and one with it on, both up
 * at once on the same database and measured in alternating rounds, so that neither gets the
 * quieter half of the run (each figure over all its rounds' fetches): p99 with the proof against
 * p99 without, at c=1, at c=16, at c=16 while signed prekeys are rotated beside (the same writes
 * on both servers, the log unchanged), and at c=16 while new identities are registered beside
 * (the log growing: each register also appends a leaf, and proofs are made afresh). Beside them,
 * one answer of each served by a bare node:http server at c=1: what the proof's bytes alone cost
 * to send and read.
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
    const rounds = new Map<string, LoadSamples[]>();
    const writeRates = new Map<string, number[]>();
    const record = <T>(into: Map<string, T[]>, key: string, value: T) =>
      into.set(key, [...(into.get(key) ?? []), value]);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [kt, served] of servers) {
        for (const concurrency of [1, 16]) {
          record(rounds, `${kt}:${concurrency}`, await served.fetchBundles(concurrency));
        }
        record(rounds, `${kt}:floor`, await floor.fetch(`/${kt}`, 1, ROUND_MS));
        for (const [key, write] of [
          ["rotating", served.rotate],
          ["growing", served.register],
        ] as const) {
          const { samples, writesPerSecond } = await whileWriting(served, write);
          record(rounds, `${kt}:${key}`, samples);
          record(writeRates, `${kt}:${key}`, writesPerSecond);
        }
      }
    }
    printTable(
      `Bundle fetch with and without key transparency on ${backend}`,
      rows(rounds, writeRates, servers),
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
  const rotated = await client.fill(`kt-rotated-${kt}`, ROTATED_ADDRESSES, 0);
  const http = keepAliveSockets(server.url, 16);
  let fetched = 0;
  let registered = 0;
  let rotations = 0;
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
    fetchBundles: (concurrency) => sampleLoad(fetchOne, { concurrency, durationMs: ROUND_MS }),
    register: () => client.register(`kt-new-${kt}-${registered++}`, 0),
    rotate: () => client.register(rotated[rotations++ % rotated.length] as string, 0),
    async stop() {
      http.close();
      await server.stop();
    },
  };
}

/** c=16 fetches while `write` runs at a fixed pace beside them. */
async function whileWriting(
  served: Served,
  write: () => Promise<void>,
): Promise<{ samples: LoadSamples; writesPerSecond: number }> {
  let writing = true;
  let writes = 0;
  const interval = 1000 / WRITES_PER_SECOND;
  const writer = (async () => {
    for (let next = performance.now(); writing; next += interval) {
      await write();
      writes++;
      await sleep(Math.max(0, next + interval - performance.now()));
    }
  })();
  const startedAt = performance.now();
  const samples = await served.fetchBundles(16);
  writing = false;
  await writer;
  return { samples, writesPerSecond: writes / ((performance.now() - startedAt) / 1000) };
}

function rows(
  rounds: Map<string, LoadSamples[]>,
  writeRates: Map<string, number[]>,
  servers: Map<Kt, Served>,
): BenchRow[] {
  const at = (key: string) => summarize(rounds.get(key) ?? []);
  const pair = (
    key: string,
    [withoutName, withName]: [string, string],
    note: (kt: Kt) => string,
  ): BenchRow[] => {
    const without = at(`off:${key}`);
    const withProof = at(`on:${key}`);
    const ratio =
      `p99 ${(withProof.p99Ms / without.p99Ms).toFixed(2)}x of without ` +
      `(rounds ${roundRatios(rounds.get(`on:${key}`), rounds.get(`off:${key}`))})`;
    return [
      { name: withoutName, ...without, note: `SVC_KT=off${note("off")}` },
      { name: withName, ...withProof, baseline: withoutName, note: `${ratio}${note("on")}` },
    ];
  };
  const bundles = (label: string): [string, string] => [
    `bundle without proof${label}`,
    `bundle with ktProof${label}`,
  ];
  const ofRounds = `; ${ROUNDS} alternating rounds pooled`;
  const writes = (key: string, what: string) => (kt: Kt) => {
    const rates = writeRates.get(`${kt}:${key}`) ?? [];
    const mean = rates.reduce((sum, rate) => sum + rate, 0) / rates.length;
    return `; ~${Math.round(mean)} ${what}/s${ofRounds}`;
  };
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
      "rotating",
      bundles(", prekey rotations beside (HTTP, c=16)"),
      writes("rotating", "rotations"),
    ),
    ...pair("growing", bundles(", registers beside (HTTP, c=16)"), writes("growing", "registers")),
  ];
}

/**
 * The lowest and highest p99 ratio of a round with the proof to the round without run just before
 * it: how far one round strays. A round's p99 at one client (a fraction of a millisecond) moves
 * with every pause of the machine; the figures pool all rounds' fetches, whose p99 moves little.
 */
function roundRatios(withProof: LoadSamples[] = [], without: LoadSamples[] = []): string {
  const p99 = (round: LoadSamples | undefined) => (round ? summarize([round]).p99Ms : Number.NaN);
  const ratios = withProof.map((round, i) => p99(round) / p99(without[i]));
  return `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}x`;
}
