import { availableParallelism, loadavg } from "node:os";
import { benchDatabaseUrl } from "../harness/postgres-url.js";
import { printTable } from "../harness/table.js";
import {
  type ConfigurationOptions,
  type ConfigurationResult,
  runConfiguration,
} from "./configuration.js";
import { CHANNEL_SHARES } from "./population.js";
import { invariantLines, peakRows, routeRows, verdict } from "./report.js";
import { MIX } from "./schedule.js";

/** BENCH_QUICK=1: a short ramp and 6 measured seconds, for trying the suite. */
const QUICK = process.env.BENCH_QUICK === "1";
/** The load level: this share of the peak the ramp finds. */
const SHARE = 0.7;

/** The load this suite runs; the memory suite runs it too. */
export const LOAD_SETTINGS = {
  seed: Number(process.env.BENCH_SEED ?? 1),
  users: QUICK ? 80 : 300,
  ramp: { from: 8, max: 256, seconds: QUICK ? 1.5 : 4 },
  share: SHARE,
  seconds: QUICK ? 6 : 30,
  maxOps: 150_000,
  maxInFlight: 512,
  drainMs: 20_000,
} satisfies Omit<ConfigurationOptions, "name" | "instances">;

/**
 * A seeded, bounded load of the whole mix (registers, bundle fetches, replenishes, deposits,
 * inbox fetches and acks, SSE, WebSocket and long-poll bridges, presence feeds) against one
 * instance and against two instances on one PostgreSQL, each on a database of its own: the peak
 * from a closed-loop ramp, then an open loop at 70% of it, per-route latencies and errors, and
 * the invariants (one-time prekeys, deliveries, the KT log) checked against the servers after.
 */
export async function loadSuite(): Promise<void> {
  const postgresUrl = benchDatabaseUrl();
  const configurations: Pick<ConfigurationOptions, "name" | "instances">[] = postgresUrl
    ? [
        { name: "1 instance", instances: 1 },
        { name: "2 instances", instances: 2 },
      ]
    : [{ name: "1 instance", instances: 1 }];
  console.log(
    `\nload: seed ${LOAD_SETTINGS.seed}; ${LOAD_SETTINGS.users} users (${shares(CHANNEL_SHARES)}); mix per 100 ops: ${shares(MIX)}; every envelope received is acknowledged`,
  );
  if (!postgresUrl) {
    console.log(
      "(two instances on one PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL)",
    );
  }
  const machine = `${availableParallelism()} cores; load average over 1 min ${loadavg()[0]?.toFixed(2)} at the start`;
  const results: ConfigurationResult[] = [];
  for (const configuration of configurations) {
    results.push(await runConfiguration({ ...LOAD_SETTINGS, ...configuration, postgresUrl }));
  }
  console.log(`\nmachine: ${machine}, ${loadavg()[0]?.toFixed(2)} at the end (this run included)`);
  printTable(
    `load: the mix's peak (closed-loop ramp) and the measured open loop at ${SHARE * 100}% of it`,
    peakRows(results),
    { latency: false, rateUnit: "mix ops/s" },
  );
  printTable(
    `load: per route, measured open loop at ${SHARE * 100}% of the peak`,
    routeRows(results),
  );
  console.log("\n## load: invariants\n");
  for (const result of results) console.log(invariantLines(result).join("\n"));
  console.log(`\n${verdict(results, SHARE)}`);
}

function shares(weights: Readonly<Record<string, number>>): string {
  return Object.entries(weights)
    .map(([name, weight]) => `${name} ${weight}`)
    .join(", ");
}
