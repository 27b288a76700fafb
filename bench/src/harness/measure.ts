import { performance } from "node:perf_hooks";

export interface LoadResult {
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
}

/** The latencies of one timed run and how long it took; pooled by {@link summarize}. */
export interface LoadSamples {
  latencies: number[];
  elapsedMs: number;
}

/**
 * Runs `operation` from `concurrency` concurrent workers for `durationMs` (after a short warm-up)
 * and reports throughput and latency percentiles.
 */
export async function runLoad(
  operation: (worker: number) => Promise<unknown>,
  options: { concurrency: number; durationMs: number; warmupMs?: number },
): Promise<LoadResult> {
  return summarize([await sampleLoad(operation, options)]);
}

/** {@link runLoad}'s run, answering every latency rather than their percentiles. */
export async function sampleLoad(
  operation: (worker: number) => Promise<unknown>,
  options: { concurrency: number; durationMs: number; warmupMs?: number },
): Promise<LoadSamples> {
  await drive(operation, options.concurrency, options.warmupMs ?? 300, []);
  const latencies: number[] = [];
  const started = performance.now();
  await drive(operation, options.concurrency, options.durationMs, latencies);
  return { latencies, elapsedMs: performance.now() - started };
}

/** Throughput and percentiles over the samples of all `runs` taken together. */
export function summarize(runs: readonly LoadSamples[]): LoadResult {
  const latencies = runs.flatMap((run) => run.latencies).sort((a, b) => a - b);
  const elapsedMs = runs.reduce((sum, run) => sum + run.elapsedMs, 0);
  return {
    opsPerSec: latencies.length / (elapsedMs / 1000),
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
  };
}

async function drive(
  operation: (worker: number) => Promise<unknown>,
  concurrency: number,
  durationMs: number,
  latencies: number[],
): Promise<void> {
  const deadline = performance.now() + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (performance.now() < deadline) {
        const start = performance.now();
        await operation(worker);
        latencies.push(performance.now() - start);
      }
    }),
  );
}

/** The round with the median rate: a drift in the machine's speed cannot favour either row. */
export function median(rounds: LoadResult[]): LoadResult {
  const sorted = [...rounds].sort((a, b) => a.opsPerSec - b.opsPerSec);
  return sorted[Math.floor(sorted.length / 2)] as LoadResult;
}

export function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

/** Counts how many times `operation` runs per second on this thread, synchronously. */
export function rate(operation: () => void, durationMs = 1000): number {
  let count = 0;
  const started = performance.now();
  while (performance.now() - started < durationMs) {
    operation();
    count++;
  }
  return count / ((performance.now() - started) / 1000);
}
