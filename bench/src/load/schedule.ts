import { SeededRandom } from "./random.js";

/**
 * The mix, in operations per 100. Acks are not drawn: every envelope a recipient receives (from
 * a bridge or an inbox fetch) is acknowledged, so they follow the deposits one for one.
 */
export const MIX = {
  /** A signed deposit to a registered recipient. */
  deposit: 44,
  /** An anonymous bundle fetch, consuming a one-time prekey when one is queued. */
  bundle: 22,
  /** A recipient without a bridge fetches its inbox and acknowledges what it got. */
  fetch: 12,
  /** The owner of an address uploads REPLENISH_KEYS fresh one-time prekeys. */
  replenish: 8,
  /** A presence feed opened until its snapshot has arrived, then closed. */
  presence: 6,
  /** A new address registers its identity (a KT leaf) and its inbox. */
  register: 4,
  /** A user with a push bridge drops it and reconnects from its cursor, maybe elsewhere. */
  reconnect: 4,
} as const;

export type OpKind = keyof typeof MIX;

/** Ciphertext sizes of deposits, per 100: a text message, a longer one, a small attachment. */
export const DEPOSIT_SIZES = { "200": 60, "1024": 30, "8192": 10 } as const;
export const REPLENISH_KEYS = 10;
/** One-time prekeys each address registers with (keyIds 0..INITIAL_PREKEYS-1). */
export const INITIAL_PREKEYS = 20;
export const PRESENCE_WATCHED = 8;

export type ScheduledOp =
  | { kind: "deposit"; sender: number; recipient: number; bytes: number; serial: number }
  | { kind: "bundle"; target: number }
  | { kind: "fetch"; user: number }
  | { kind: "replenish"; user: number; firstKeyId: number }
  | { kind: "presence"; user: number; watched: number[] }
  | { kind: "register"; user: number }
  | { kind: "reconnect"; user: number };

/** An operation with the instance it goes to and, on an open loop, its start in ms. */
export type TimedOp = ScheduledOp & { instance: number; at: number };

/** Who the operations may name: the users registered before the run, by their index. */
export interface Roster {
  users: number;
  /** Users that read their inbox by fetching (no bridge). */
  fetchers: readonly number[];
  /** Users holding an SSE or WebSocket bridge. */
  pushed: readonly number[];
  instances: number;
}

/**
 * What two schedules of one run share so that they never collide: the next new user's index,
 * each user's next one-time prekey id, the next deposit serial.
 */
export class ScheduleCounters {
  readonly #keyIds = new Map<number, number>();
  nextUser: number;
  nextSerial = 0;

  constructor(roster: Roster) {
    this.nextUser = roster.users;
  }

  takeKeyIds(user: number, count: number): number {
    const first = this.#keyIds.get(user) ?? INITIAL_PREKEYS;
    this.#keyIds.set(user, first + count);
    return first;
  }
}

/**
 * A deterministic stream of operations: the same seed, stream name, roster and rate give the same
 * operations with the same targets, sizes, instances and (open loop) start times.
 */
export class Schedule {
  readonly #random: SeededRandom;

  constructor(
    seed: number,
    stream: string,
    readonly roster: Roster,
    readonly counters: ScheduleCounters = new ScheduleCounters(roster),
  ) {
    if (roster.users < 2) throw new RangeError("roster.users must be at least 2");
    if (roster.fetchers.length === 0 || roster.pushed.length === 0) {
      throw new RangeError("roster needs fetching and pushed users");
    }
    this.#random = new SeededRandom(seed, stream);
  }

  /** `count` operations for a closed loop (each starts when a worker is free). */
  take(count: number): TimedOp[] {
    return Array.from({ length: count }, () => this.#timed(0));
  }

  /**
   * An open loop: Poisson arrivals at `perSecond` for `seconds`, at most `maxOps` operations
   * (the bound on a run's size).
   */
  openLoop(perSecond: number, seconds: number, maxOps: number): TimedOp[] {
    if (!(perSecond > 0)) throw new RangeError("perSecond must be positive");
    const ops: TimedOp[] = [];
    const meanGap = 1000 / perSecond;
    let at = this.#random.exponential(meanGap);
    while (at < seconds * 1000 && ops.length < maxOps) {
      ops.push(this.#timed(at));
      at += this.#random.exponential(meanGap);
    }
    return ops;
  }

  #timed(at: number): TimedOp {
    const op = this.next();
    return { ...op, instance: this.#random.below(this.roster.instances), at };
  }

  next(): ScheduledOp {
    const random = this.#random;
    const { users, fetchers, pushed } = this.roster;
    const kind = random.weighted(MIX);
    switch (kind) {
      case "deposit": {
        const recipient = random.below(users);
        const sender = (recipient + 1 + random.below(users - 1)) % users;
        const bytes = Number(random.weighted(DEPOSIT_SIZES));
        return { kind, sender, recipient, bytes, serial: this.counters.nextSerial++ };
      }
      case "bundle":
        return { kind, target: random.below(users) };
      case "fetch":
        return { kind, user: random.pick(fetchers) };
      case "replenish": {
        const user = random.below(users);
        return { kind, user, firstKeyId: this.counters.takeKeyIds(user, REPLENISH_KEYS) };
      }
      case "presence": {
        const user = random.below(users);
        return { kind, user, watched: random.distinct(Math.min(PRESENCE_WATCHED, users), users) };
      }
      case "register":
        return { kind, user: this.counters.nextUser++ };
      case "reconnect":
        return { kind, user: random.pick(pushed) };
    }
  }
}
