import { percentile } from "../harness/measure.js";
import type { BenchRow } from "../harness/table.js";
import { POLL_TIMEOUT_MS } from "./bridges.js";
import type { ConfigurationResult } from "./configuration.js";
import type { PhaseResult } from "./phases.js";
import type { Route, RouteStats } from "./recorder.js";

/** The routes of the latency table, in this order; those a phase did not use are left out. */
const ROUTES: readonly Route[] = [
  "deposit",
  "bundle fetch",
  "inbox fetch",
  "ack",
  "replenish",
  "keys register",
  "inbox register",
  "presence snapshot",
  "bridge open (sse)",
  "bridge open (ws)",
  "poll (held)",
  "delivery (sse)",
  "delivery (ws)",
  "delivery (poll)",
];

const NOTES: Partial<Record<Route, string>> = {
  "poll (held)": `held until an envelope comes or ${POLL_TIMEOUT_MS / 1000} s pass`,
  "delivery (sse)": "deposit request sent -> envelope at the bridge",
  "delivery (ws)": "deposit request sent -> envelope at the bridge",
  "delivery (poll)": "deposit request sent -> envelope in a poll answer",
  "bridge open (sse)": "reconnects from the cursor, maybe on the other instance",
  "bridge open (ws)": "reconnects from the cursor, maybe on the other instance",
  "presence snapshot": "feed opened until every watched address is reported",
};

/**
 * The ramp of each configuration and its measured phase, the measured rate compared with the
 * peak (the ramp's best step).
 */
export function peakRows(results: readonly ConfigurationResult[]): BenchRow[] {
  return results.flatMap((result) => {
    const steps = result.peak?.steps ?? [];
    const best = steps.reduce<(typeof steps)[number] | undefined>(
      (top, step) => (top === undefined || step.opsPerSec > top.opsPerSec ? step : top),
      undefined,
    );
    const label = `${result.name} (${result.database})`;
    const rows: BenchRow[] = steps.map((step) => ({
      name: `${label}: closed loop, ${step.name.replace("peak ", "")}`,
      opsPerSec: step.opsPerSec,
      columns: errorColumns(phaseTotal(result, step.name)),
      note: `${step.ops} ops in ${step.seconds.toFixed(1)} s; ${cpu(step)}${step === best ? "; the peak" : ""}`,
    }));
    const { measured } = result;
    rows.push({
      name: `${label}: measured, open loop`,
      opsPerSec: measured.opsPerSec,
      columns: errorColumns(phaseTotal(result, "measured")),
      baseline: best ? `${label}: closed loop, ${best.name.replace("peak ", "")}` : undefined,
      note: `offered ${Math.round(measured.offeredPerSec ?? 0)}/s for ${measured.seconds.toFixed(1)} s, ${measured.ops} ops, ${measured.late ?? 0} started late (> 50 ms); ${cpu(measured)}; load average ${result.loadAverage.map((l) => l.toFixed(1)).join(" -> ")}`,
    });
    return rows;
  });
}

/**
 * Per route of the measured phase: throughput, p50 and p99, errors and 5xx; every configuration
 * after the first compared with the first by p99.
 */
export function routeRows(results: readonly ConfigurationResult[]): BenchRow[] {
  const first = results[0];
  return results.flatMap((result) => {
    const phase = result.recorder.routes.get("measured") ?? new Map<Route, RouteStats>();
    const seconds = result.measured.seconds;
    const total = phaseTotal(result, "measured");
    const rows: BenchRow[] = [
      {
        name: `${result.name}: all requests`,
        opsPerSec: total.count / seconds,
        columns: errorColumns(total),
        note: `${result.database}; ${Math.round(result.measured.opsPerSec)} mix ops/s and the acks, polls and reconnects they caused`,
      },
    ];
    for (const route of ROUTES) {
      const stats = phase.get(route);
      if (!stats) continue;
      const sorted = [...stats.latencies].sort((a, b) => a - b);
      const isDelivery = route.startsWith("delivery");
      rows.push({
        name: `${result.name}: ${route}`,
        opsPerSec: stats.count / seconds,
        p50Ms: percentile(sorted, 0.5),
        p99Ms: percentile(sorted, 0.99),
        columns: isDelivery ? {} : errorColumns(stats),
        baseline: result === first || !first ? undefined : `${first.name}: ${route}`,
        compare: "p99Ms",
        note: [NOTES[route], failures(stats)].filter(Boolean).join("; ") || undefined,
      });
    }
    return rows;
  });
}

/** Lines "pass|FAIL name: detail", with the first violations under a failed one. */
export function invariantLines(result: ConfigurationResult): string[] {
  const lines = [`${result.name} (${result.database}):`];
  for (const invariant of result.invariants) {
    lines.push(`  ${invariant.passed ? "pass" : "FAIL"}  ${invariant.name}: ${invariant.detail}`);
    for (const example of invariant.examples) lines.push(`          e.g. ${example}`);
  }
  lines.push(
    `  info  ${result.undelivered} acknowledged deposits undelivered when the drain ended; ` +
      `${result.presenceEvents} presence events on the standing feeds; ` +
      `${result.bridgeDrops} push bridges ended by the server and resumed`,
  );
  return lines;
}

/** 5xx of a configuration outside its ramp (the ramp runs past the load the target is about). */
export function serverErrorsAtTarget(result: ConfigurationResult): number {
  let count = 0;
  for (const [phase, routes] of result.recorder.routes) {
    if (phase.startsWith("peak")) continue;
    for (const stats of routes.values()) count += stats.serverErrors;
  }
  return count;
}

export function violations(result: ConfigurationResult): number {
  return result.invariants.reduce((sum, invariant) => sum + invariant.violations, 0);
}

/** The issue's target, judged over every configuration that ran. */
export function verdict(results: readonly ConfigurationResult[], share: number): string {
  const target = `target at ${Math.round(share * 100)}% of the peak: zero invariant violations, zero 5xx, p99 per route reported, one instance and two on one PostgreSQL`;
  const failures = results.flatMap((result) => {
    const problems = [];
    if (violations(result) > 0) problems.push(`${violations(result)} invariant violations`);
    if (serverErrorsAtTarget(result) > 0) problems.push(`${serverErrorsAtTarget(result)} 5xx`);
    return problems.length > 0 ? [`${result.name}: ${problems.join(", ")}`] : [];
  });
  if (failures.length > 0) return `${target}: NOT met (${failures.join("; ")})`;
  const both = results.some((r) => r.instances === 1) && results.some((r) => r.instances === 2);
  const onPostgres = results.every((r) => r.database === "PostgreSQL");
  if (!both || !onPostgres) {
    return `${target}: not judged (needs PostgreSQL for two instances: set BENCH_DATABASE_URL or TEST_DATABASE_URL); what ran had no violation and no 5xx`;
  }
  return `${target}: met`;
}

/** The CPU the servers and the load generator used, in cores (PostgreSQL's is not counted). */
function cpu(phase: PhaseResult): string {
  const servers =
    phase.serverCores === undefined ? "" : `servers ${phase.serverCores.toFixed(2)} cores, `;
  return `${servers}load generator ${phase.clientCores.toFixed(2)}`;
}

interface Totals {
  count: number;
  errors: number;
  serverErrors: number;
}

/** Requests of one phase over every route (deliveries are not requests). */
function phaseTotal(result: ConfigurationResult, phase: string): Totals {
  const total: Totals = { count: 0, errors: 0, serverErrors: 0 };
  for (const [route, stats] of result.recorder.routes.get(phase) ?? []) {
    if (route.startsWith("delivery")) continue;
    total.count += stats.count;
    total.errors += stats.errors;
    total.serverErrors += stats.serverErrors;
  }
  return total;
}

function errorColumns(stats: Totals): Record<string, string> {
  return { errors: String(stats.errors), "5xx": String(stats.serverErrors) };
}

/** "status x count" of the answers that were not 2xx (0: no answer). */
function failures(stats: RouteStats): string | undefined {
  const failed = [...stats.statuses].filter(([status]) => status < 200 || status >= 300);
  if (failed.length === 0) return undefined;
  return `failed: ${failed.map(([status, count]) => `${status} x${count}`).join(", ")}`;
}
