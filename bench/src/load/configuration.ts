import { loadavg } from "node:os";
import { decodeBase64, ed25519KeyPairFromSeed } from "@svc/canonical";
import { httpLogClient } from "@svc/kt-verify";
import { LoadClients } from "./clients.js";
import { cpuSeconds } from "./cpu.js";
import { type StartInstance, startDeployment } from "./deployment.js";
import { checkDeliveries, checkPrekeys, type InvariantResult } from "./invariants.js";
import { checkKtLog } from "./kt-invariant.js";
import {
  closedLoop,
  drain,
  openLoop,
  type PhaseResult,
  registerRoster,
  type ServerCpu,
  settle,
} from "./phases.js";
import { Population } from "./population.js";
import { Recorder } from "./recorder.js";
import { RequestBook } from "./requests.js";
import { Schedule, ScheduleCounters } from "./schedule.js";

export interface ConfigurationOptions {
  /** How the report names it, e.g. "1 instance". */
  name: string;
  instances: number;
  /** A PostgreSQL server to make the configuration's database on; PGlite without. */
  postgresUrl?: string | undefined;
  start?: StartInstance;
  seed: number;
  /** Users registered before the load, each with a bridge, a poll loop or inbox fetches. */
  users: number;
  /**
   * Closed-loop steps from `from` workers, doubling up to `max` until two steps in a row gain
   * less than 5%; the best step's rate is the peak. Without a ramp, `rate` is required.
   */
  ramp?: { from: number; max: number; seconds: number };
  /** The share of the peak the measured phase runs at (0.7). */
  share: number;
  /** A fixed rate for the measured phase, or (with a ramp) the most it may be. */
  rate?: number;
  seconds: number;
  /** The most operations one phase signs ahead: the bound on a run's size. */
  maxOps: number;
  maxInFlight: number;
  drainMs: number;
}

export interface ConfigurationResult {
  name: string;
  database: string;
  instances: number;
  peak?: { steps: PhaseResult[]; opsPerSec: number };
  measured: PhaseResult;
  recorder: Recorder;
  invariants: InvariantResult[];
  /** Acknowledged deposits still undelivered when the drain gave up. */
  undelivered: number;
  presenceEvents: number;
  bridgeDrops: number;
  /** The machine's 1-minute load average before the ramp and after the measured phase. */
  loadAverage: [number, number];
}

const MAX_SOCKETS = 128;

/**
 * One configuration from start to end: its instances on a fresh database, the users registered
 * and connected, the peak found by a closed-loop ramp, the measured open loop at `share` of it,
 * the drain, and the invariants read from the servers at the end.
 */
export async function runConfiguration(
  options: ConfigurationOptions,
): Promise<ConfigurationResult> {
  const deployment = await startDeployment(options);
  try {
    const population = new Population(options.seed, options.users, options.instances);
    const recorder = new Recorder();
    const book = new RequestBook(population);
    const clients = new LoadClients(deployment.urls, population, book, recorder, MAX_SOCKETS);
    try {
      await registerRoster(clients, book, population);
      await clients.openStanding();
      await settle(clients, recorder, { quietMs: 200, timeoutMs: 3000 });
      const counters = new ScheduleCounters(population.roster);
      const serverCpu: ServerCpu = () => cpuSeconds(deployment.pids);
      const loadBefore = loadavg()[0] ?? 0;

      const peakSchedule = new Schedule(options.seed, "peak", population.roster, counters);
      const peak = options.ramp
        ? await ramp(clients, book, peakSchedule, serverCpu, options)
        : undefined;
      const rate = measuredRate(options, peak?.opsPerSec);
      const schedule = new Schedule(options.seed, "measured", population.roster, counters);
      const measured = await openLoop("measured", clients, book, schedule, {
        perSecond: rate,
        seconds: options.seconds,
        maxOps: options.maxOps,
        maxInFlight: options.maxInFlight,
        serverCpu,
      });
      const loadAverage: [number, number] = [loadBefore, loadavg()[0] ?? 0];
      const undelivered = await drain(clients, population, recorder, options.drainMs);
      await clients.closeStanding();

      recorder.phase = "checks";
      clients.renewSockets();
      for (const user of population.rostered()) await clients.leftQueued(user.index, user.home);
      await countPrekeys(clients, recorder);
      const logPublicKey = ed25519KeyPairFromSeed(decodeBase64(deployment.ktSigningKey)).publicKey;
      const latestSths = await Promise.all(deployment.urls.map((url) => httpLogClient(url).sth()));
      const invariants = [
        checkPrekeys(recorder),
        checkDeliveries(recorder),
        await checkKtLog({
          recorder,
          client: httpLogClient(deployment.urls[0] as string),
          logPublicKey,
          vrfSecretKey: decodeBase64(deployment.ktVrfKey),
          latestSths,
        }),
      ];
      return {
        name: options.name,
        database: deployment.database,
        instances: options.instances,
        ...(peak ? { peak } : {}),
        measured,
        recorder,
        invariants,
        undelivered,
        presenceEvents: clients.presenceEvents(),
        bridgeDrops: clients.bridgeDrops(),
        loadAverage,
      };
    } finally {
      await clients.closeStanding();
      clients.close();
    }
  } finally {
    await deployment.stop();
  }
}

/** A ramp doubles the workers until RAMP_MISSES steps in a row gain less than this on the best. */
const RAMP_GAIN = 1.05;
const RAMP_MISSES = 2;
/** Operations signed ahead per second of the first ramp step; later ones, 3x the best rate. */
const FIRST_STEP_BOUND_PER_SECOND = 6000;

async function ramp(
  clients: LoadClients,
  book: RequestBook,
  schedule: Schedule,
  serverCpu: ServerCpu,
  options: ConfigurationOptions,
): Promise<NonNullable<ConfigurationResult["peak"]>> {
  const { from, max, seconds } = options.ramp ?? { from: 1, max: 1, seconds: 1 };
  const steps: PhaseResult[] = [];
  let best = 0;
  let misses = 0;
  for (let concurrency = from; concurrency <= max; concurrency *= 2) {
    const perSecond = best === 0 ? FIRST_STEP_BOUND_PER_SECOND : 3 * best;
    const maxOps = Math.min(options.maxOps, Math.ceil(seconds * perSecond));
    const name = `peak c=${concurrency}`;
    const load = { concurrency, seconds, maxOps, serverCpu };
    const step = await closedLoop(name, clients, book, schedule, load);
    steps.push(step);
    await settle(clients, clients.recorder, { quietMs: 300, timeoutMs: 5000 });
    // One step without gain can be noise on a shared machine: two in a row end the ramp.
    misses = step.opsPerSec > best * RAMP_GAIN ? 0 : misses + 1;
    best = Math.max(best, step.opsPerSec);
    if (misses === RAMP_MISSES) break;
  }
  return { steps, opsPerSec: best };
}

function measuredRate(options: ConfigurationOptions, peak: number | undefined): number {
  if (peak === undefined) {
    if (options.rate === undefined) throw new TypeError("options.rate or options.ramp is needed");
    return options.rate;
  }
  const rate = peak * options.share;
  return options.rate === undefined ? rate : Math.min(rate, options.rate);
}

/** Every queue's length at the end, for the prekey balance. */
async function countPrekeys(clients: LoadClients, recorder: Recorder): Promise<void> {
  const addresses = [...recorder.prekeysStored.keys()];
  const at = (n: number) => n % clients.urls.length;
  for (const [n, address] of addresses.entries()) {
    const path = `/v1/keys/count/${address}`;
    const answer = await clients.send("prekey count", at(n), { method: "GET", path });
    if (answer?.status === 200) {
      recorder.prekeysRemaining.set(address, (JSON.parse(answer.body) as { count: number }).count);
    }
  }
}
