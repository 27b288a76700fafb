import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { LoadClients } from "./clients.js";
import type { Population } from "./population.js";
import type { Recorder } from "./recorder.js";
import type { PreparedOp, RequestBook } from "./requests.js";
import type { Schedule } from "./schedule.js";

/** What one phase of operations did. */
export interface PhaseResult {
  name: string;
  /** Operations of the mix completed (acks and bridge traffic come on top). */
  ops: number;
  seconds: number;
  opsPerSec: number;
  /** Open loop: the rate asked for, and how many operations started late for want of a slot. */
  offeredPerSec?: number;
  late?: number;
  /** CPU this process (the load generator) used, in cores: it shares the machine. */
  clientCores: number;
  /** CPU the server processes used, in cores, where it can be read. */
  serverCores?: number | undefined;
}

/** Reads the servers' CPU seconds so far (undefined where it cannot). */
export type ServerCpu = () => number | undefined;

const REGISTER_AT_ONCE = 16;
/** An operation starting this much after its time on an open loop counts as late. */
const LATE_MS = 50;

/** Registers the roster (identity with one-time prekeys, inbox), spread over the instances. */
export async function registerRoster(
  clients: LoadClients,
  book: RequestBook,
  population: Population,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: REGISTER_AT_ONCE }, async () => {
      while (next < population.count) {
        const index = next++;
        await clients.register(book.register(index), index % population.instances);
      }
    }),
  );
}

/**
 * A closed loop: `concurrency` workers each start the next operation when their last one is done,
 * for `seconds` or until the `maxOps` operations signed ahead run out. Its rate is what the
 * servers (and this machine) reach at that concurrency.
 */
export async function closedLoop(
  name: string,
  clients: LoadClients,
  book: RequestBook,
  schedule: Schedule,
  options: { concurrency: number; seconds: number; maxOps: number; serverCpu: ServerCpu },
): Promise<PhaseResult> {
  const ops = schedule.take(options.maxOps).map((op) => book.prepare(op));
  clients.renewSockets();
  clients.recorder.phase = name;
  let next = 0;
  let done = 0;
  const cpu = process.cpuUsage();
  const serverCpu = options.serverCpu();
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < ops.length && performance.now() < deadline) {
        await clients.run(ops[next++] as PreparedOp);
        done++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    name,
    ops: done,
    seconds,
    opsPerSec: done / seconds,
    clientCores: cores(cpu, seconds),
    serverCores: serverCores(options.serverCpu, serverCpu, seconds),
  };
}

/**
 * An open loop: each operation starts at its scheduled time whether or not the earlier ones are
 * done, with at most `maxInFlight` outstanding (a server slower than the rate makes operations
 * late, and lowers the rate reached, rather than piling up without bound).
 */
export async function openLoop(
  name: string,
  clients: LoadClients,
  book: RequestBook,
  schedule: Schedule,
  options: {
    perSecond: number;
    seconds: number;
    maxOps: number;
    maxInFlight: number;
    serverCpu: ServerCpu;
  },
): Promise<PhaseResult> {
  const ops = schedule
    .openLoop(options.perSecond, options.seconds, options.maxOps)
    .map((op) => book.prepare(op));
  clients.renewSockets();
  clients.recorder.phase = name;
  let inFlight = 0;
  let late = 0;
  const running = new Set<Promise<void>>();
  const cpu = process.cpuUsage();
  const serverCpu = options.serverCpu();
  const started = performance.now();
  for (const op of ops) {
    const wait = started + op.at - performance.now();
    if (wait > 1) await sleep(wait);
    while (inFlight >= options.maxInFlight) await Promise.race(running);
    if (performance.now() - (started + op.at) > LATE_MS) late++;
    inFlight++;
    const run: Promise<void> = clients.run(op).finally(() => {
      inFlight--;
      running.delete(run);
    });
    running.add(run);
  }
  await Promise.all(running);
  const seconds = (performance.now() - started) / 1000;
  return {
    name,
    ops: ops.length,
    seconds,
    opsPerSec: ops.length / seconds,
    offeredPerSec: options.perSecond,
    late,
    clientCores: cores(cpu, seconds),
    serverCores: serverCores(options.serverCpu, serverCpu, seconds),
  };
}

function serverCores(read: ServerCpu, since: number | undefined, seconds: number) {
  const now = read();
  return now === undefined || since === undefined ? undefined : (now - since) / seconds;
}

function cores(since: NodeJS.CpuUsage, seconds: number): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6 / seconds;
}

/**
 * Waits until no ack is in flight and no envelope has arrived for `quietMs`, at most `timeoutMs`:
 * between phases, so that one phase's deliveries are not counted in the next.
 */
export async function settle(
  clients: LoadClients,
  recorder: Recorder,
  options: { quietMs: number; timeoutMs: number },
): Promise<void> {
  const deadline = performance.now() + options.timeoutMs;
  let deliveries = -1;
  while (performance.now() < deadline) {
    const now = recorder.deliveries.size;
    if (now === deliveries && clients.acksInFlight === 0) return;
    deliveries = now;
    await sleep(options.quietMs);
  }
}

/**
 * After the last operation: the fetching users drain their inboxes, then everyone waits for
 * their bridges and polls until every acknowledged deposit has arrived, at most `timeoutMs`.
 * Answers how many acknowledged deposits were still undelivered at the end.
 */
export async function drain(
  clients: LoadClients,
  population: Population,
  recorder: Recorder,
  timeoutMs: number,
): Promise<number> {
  recorder.phase = "drain";
  clients.renewSockets();
  const deadline = performance.now() + timeoutMs;
  const fetchers = population.roster.fetchers;
  let lastFetch = 0;
  while (performance.now() < deadline) {
    if (performance.now() - lastFetch > 1000) {
      lastFetch = performance.now();
      for (let i = 0; i < fetchers.length; i += REGISTER_AT_ONCE) {
        const slice = fetchers.slice(i, i + REGISTER_AT_ONCE);
        await Promise.all(
          slice.map((user) => clients.fetchInbox(user, population.user(user).home)),
        );
      }
    }
    if (recorder.undelivered() === 0 && clients.acksInFlight === 0) break;
    await sleep(50);
  }
  while (clients.acksInFlight > 0 && performance.now() < deadline + 5000) await sleep(20);
  return recorder.undelivered();
}
