import { encodeBase64 } from "@svc/canonical";
import { type Party, party, type TestIdentity, testIdentity } from "@svc/test-client";
import { nodeSigner } from "@svc/test-client/node";
import { SeededRandom } from "./random.js";
import { PRESENCE_WATCHED, type Roster } from "./schedule.js";

/** How a user receives its envelopes: a push bridge, a long-poll loop, or inbox fetches. */
export type Channel = "sse" | "ws" | "poll" | "fetch";

/** Shares of the users registered before the run, per 100. */
export const CHANNEL_SHARES: Readonly<Record<Channel, number>> = {
  sse: 25,
  ws: 25,
  poll: 10,
  fetch: 40,
};
/** Users per 100 holding a presence feed all run long, each watching PRESENCE_WATCHED others. */
export const STANDING_WATCHERS = 10;

/** A one-time prekey as uploaded and as a bundle hands it out. */
export interface PrekeyEntry {
  keyId: number;
  publicKey: string;
}

export interface User {
  index: number;
  address: string;
  channel: Channel;
  /** The instance its bridge or poll loop starts on. */
  home: number;
  /** Signs keys requests (register, replenish); its keys are the identity's. */
  identity: TestIdentity;
  /** Owns the inbox and signs bridge queries; also the key it deposits to others with. */
  inbox: Party;
}

/**
 * The users of one run: the first `count` registered before the load starts with a channel each
 * (drawn from the seed), and those that `register` operations add, built on first use.
 */
export class Population {
  readonly #users = new Map<number, User>();
  readonly roster: Roster;
  readonly watchers: { user: number; watched: number[] }[] = [];

  constructor(
    readonly seed: number,
    readonly count: number,
    readonly instances: number,
  ) {
    const random = new SeededRandom(seed, "users");
    const fetchers: number[] = [];
    const pushed: number[] = [];
    for (let index = 0; index < count; index++) {
      const channel = random.weighted(CHANNEL_SHARES);
      // Every channel on every instance, whatever the draw: users take turns.
      const home = index % instances;
      this.#users.set(index, this.#build(index, channel, home));
      if (channel === "fetch") fetchers.push(index);
      if (channel === "sse" || channel === "ws") pushed.push(index);
      if (random.below(100) < STANDING_WATCHERS) {
        this.watchers.push({
          user: index,
          watched: random.distinct(Math.min(PRESENCE_WATCHED, count), count),
        });
      }
    }
    this.roster = { users: count, fetchers, pushed, instances };
  }

  /** User `index`; one beyond the roster is a new address (it only registers). */
  user(index: number): User {
    let user = this.#users.get(index);
    if (!user) {
      user = this.#build(index, "fetch", index % this.instances);
      this.#users.set(index, user);
    }
    return user;
  }

  /** The users of the roster, registered before the run. */
  rostered(): User[] {
    return Array.from({ length: this.count }, (_, index) => this.user(index));
  }

  /** Fresh one-time prekeys: keyIds from `firstKeyId`, keys drawn from this run's seed. */
  prekeys(user: number, firstKeyId: number, count: number): PrekeyEntry[] {
    const random = new SeededRandom(this.seed, `prekeys:${user}:${firstKeyId}`);
    return Array.from({ length: count }, (_, i) => ({
      keyId: firstKeyId + i,
      publicKey: encodeBase64(random.bytes(32)),
    }));
  }

  #build(index: number, channel: Channel, home: number): User {
    const address = `load-${index}:1`;
    const label = `bench-load:${this.seed}:${index}`;
    return {
      index,
      address,
      channel,
      home,
      identity: testIdentity(address, label, nodeSigner),
      inbox: party(label, nodeSigner),
    };
  }
}
