import { performance } from "node:perf_hooks";
import { KeyedSerial } from "@svc/canonical";
import type { PreparedRequest } from "@svc/test-client";
import { type KeepAliveSockets, keepAliveSockets, type SocketAnswer } from "@svc/test-client/node";
import { type Envelope, openPresence, PollLoop, PushBridge } from "./bridges.js";
import type { Population, User } from "./population.js";
import type { Recorder, Route } from "./recorder.js";
import type { PreparedOp, PreparedRegister, RequestBook } from "./requests.js";

/** A request unanswered after this long is counted as failed (status 0). */
const REQUEST_TIMEOUT_MS = 30_000;
/** Bundle proofs kept for the KT check: enough for any bounded run, and a bound on memory. */
const MAX_BUNDLE_PROOFS = 50_000;
const FETCH_PAGES = 5;
const OPEN_AT_ONCE = 20;

/**
 * The clients of a load run against one or more instances: they send the operations, hold every
 * user's bridge, poll loop or presence feed, acknowledge every envelope that reaches a recipient,
 * and write what they see to the recorder.
 */
export class LoadClients {
  readonly bridges = new Map<number, PushBridge>();
  readonly polls: PollLoop[] = [];
  readonly #watchers: { events: () => number; close: () => void }[] = [];
  /** Fetches of one inbox run one after another. */
  readonly #fetches = new KeyedSerial();
  #http: KeepAliveSockets[] = [];
  readonly #retired: KeepAliveSockets[] = [];
  /** Acks sent and not answered yet. */
  acksInFlight = 0;

  constructor(
    readonly urls: readonly string[],
    readonly population: Population,
    readonly book: RequestBook,
    readonly recorder: Recorder,
    readonly maxSockets: number,
  ) {
    this.renewSockets();
  }

  /**
   * New keep-alive sockets, at the start of each phase: the server closes sockets idle for 5 s
   * (as between two phases), and one it closes while a request is being written would count as a
   * failure. The old ones are left to finish what they carry and closed at the end.
   */
  renewSockets(): void {
    this.#retired.push(...this.#http);
    this.#http = this.urls.map((url) => keepAliveSockets(url, this.maxSockets));
  }

  close(): void {
    for (const http of [...this.#retired, ...this.#http]) http.close();
  }

  /** Sends one request and records its route, status and time; undefined when unanswered. */
  async send(
    route: Route,
    instance: number,
    request: PreparedRequest,
  ): Promise<SocketAnswer | undefined> {
    const phase = this.recorder.phase;
    const http = this.#http[instance] as KeepAliveSockets;
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(resolve, REQUEST_TIMEOUT_MS, undefined);
    });
    const init =
      request.body === undefined
        ? { method: request.method }
        : { method: request.method, body: request.body };
    const answer = await Promise.race([
      http(request.path, init).catch(() => undefined),
      timeout,
    ]).finally(() => clearTimeout(timer));
    this.recorder.request(phase, route, answer?.status ?? 0, performance.now() - started);
    return answer;
  }

  run(op: PreparedOp): Promise<void> {
    const { instance } = op;
    switch (op.kind) {
      case "deposit":
        return this.#deposit(op, instance);
      case "register":
        return this.register(op.register as PreparedRegister, instance);
      case "replenish":
        return this.#replenish(op, instance);
      case "bundle":
        return this.#bundle(this.population.user(op.target).address, instance);
      case "fetch":
        return this.fetchInbox(op.user, instance);
      case "presence":
        return this.#presence(op.user, op.watched, instance);
      case "reconnect":
        return this.#reconnect(op.user, instance);
    }
  }

  async register({ user, keys, inbox, prekeys }: PreparedRegister, instance: number) {
    const answer = await this.send("keys register", instance, keys);
    const status = answer?.status ?? 0;
    this.recorder.prekeysUploaded(user.address, prekeys, status);
    if (status === 200) {
      const { identitySigningKey, identityDHKey } = user.identity;
      this.recorder.identities.set(user.address, { identitySigningKey, identityDHKey });
    } else if (status === 0 || status >= 500) {
      this.recorder.identitiesUncertain.add(user.address);
    }
    await this.send("inbox register", instance, inbox);
  }

  async #deposit(op: PreparedOp, instance: number): Promise<void> {
    const deposit = op.deposit;
    if (!deposit) throw new Error("deposit not prepared");
    this.recorder.depositSent(deposit.msgId, deposit.recipient.address);
    const answer = await this.send("deposit", instance, deposit.request);
    if (answer) this.recorder.depositAnswered(deposit.msgId, answer.status, answer.body);
  }

  async #replenish(op: PreparedOp, instance: number): Promise<void> {
    const replenish = op.replenish;
    if (!replenish || op.kind !== "replenish") throw new Error("replenish not prepared");
    const answer = await this.send("replenish", instance, replenish.request);
    const address = this.population.user(op.user).address;
    this.recorder.prekeysUploaded(address, replenish.prekeys, answer?.status ?? 0);
  }

  async #bundle(address: string, instance: number): Promise<void> {
    const path = `/v1/keys/bundle/${address}`;
    const answer = await this.send("bundle fetch", instance, { method: "GET", path });
    if (answer?.status !== 200) {
      // A fetch that failed on the server may have consumed a key nobody saw.
      if (!answer || answer.status >= 500) this.recorder.uncertainQueues.add(address);
      return;
    }
    const bundle = JSON.parse(answer.body) as {
      identitySigningKey: string;
      identityDHKey: string;
      oneTimePreKey?: { keyId: number; publicKey: string };
      ktProof?: unknown;
    };
    const prekey = bundle.oneTimePreKey;
    if (prekey) this.recorder.prekeyHandedOut(address, prekey.keyId, prekey.publicKey);
    if (bundle.ktProof === undefined) this.recorder.bundlesWithoutProof++;
    else if (this.recorder.bundleProofs.length < MAX_BUNDLE_PROOFS) {
      const { identitySigningKey, identityDHKey, ktProof } = bundle;
      this.recorder.bundleProofs.push({ address, ktProof, identitySigningKey, identityDHKey });
    }
  }

  /** Fetches and acknowledges `index`'s inbox, after any fetch of it still running. */
  fetchInbox(index: number, instance: number): Promise<void> {
    return this.#fetches.run(String(index), () => this.#drainInbox(index, instance));
  }

  async #drainInbox(index: number, instance: number): Promise<void> {
    const user = this.population.user(index);
    for (let page = 0; page < FETCH_PAGES; page++) {
      const answer = await this.send("inbox fetch", instance, this.book.fetch(index));
      if (answer?.status !== 200) return;
      const { items, nextCursor } = JSON.parse(answer.body) as {
        items: { msgId: string }[];
        nextCursor: string | null;
      };
      for (const { msgId } of items) this.recorder.delivered(msgId, user.address, "fetch");
      // Acknowledged before the next page, which starts again from the inbox's start.
      await Promise.all(items.map(({ msgId }) => this.#ack(msgId, instance)));
      if (nextCursor === null) return;
    }
  }

  /** What `index`'s inbox still serves once everything is acknowledged (no acks sent). */
  async leftQueued(index: number, instance: number): Promise<void> {
    const user = this.population.user(index);
    const answer = await this.send("inbox fetch", instance, this.book.fetch(index));
    if (answer?.status !== 200) return;
    const { items } = JSON.parse(answer.body) as { items: { msgId: string }[] };
    for (const { msgId } of items) {
      if (this.recorder.acknowledgedByRecipient.has(msgId)) {
        this.recorder.leftQueued.push({ msgId, recipient: user.address });
      }
    }
  }

  /** Every envelope a bridge or poll hands over is recorded and acknowledged where it came from. */
  readonly deliver = (user: User, envelope: Envelope, instance: number): void => {
    this.recorder.delivered(envelope.msgId, user.address, user.channel);
    void this.#ack(envelope.msgId, instance);
  };

  async #ack(msgId: string, instance: number): Promise<void> {
    const ack = this.book.acks.get(msgId);
    if (!ack) return; // not a deposit of this run: the invariants report it
    this.acksInFlight++;
    try {
      const answer = await this.send("ack", instance, ack);
      if (answer?.status === 200) this.recorder.acknowledgedByRecipient.add(msgId);
    } finally {
      this.acksInFlight--;
    }
  }

  async #presence(index: number, watched: number[], instance: number): Promise<void> {
    const watcher = this.population.user(index);
    const addresses = watched.map((i) => this.population.user(i).address);
    const phase = this.recorder.phase;
    const feed = await openPresence(this.urls[instance] as string, watcher, addresses);
    feed.close();
    this.recorder.request(phase, "presence snapshot", feed.status, feed.ms);
  }

  async #reconnect(index: number, instance: number): Promise<void> {
    const bridge = this.bridges.get(index);
    if (!bridge) throw new Error(`user ${index} holds no push bridge`);
    const phase = this.recorder.phase;
    const { status, ms } = await bridge.open(instance);
    this.recorder.request(phase, `bridge open (${bridge.kind})`, status === 101 ? 200 : status, ms);
  }

  /** Opens every rostered user's bridge or poll loop, and the standing presence feeds. */
  async openStanding(): Promise<void> {
    const { recorder } = this;
    const users = this.population.rostered();
    for (let i = 0; i < users.length; i += OPEN_AT_ONCE) {
      await Promise.all(users.slice(i, i + OPEN_AT_ONCE).map((user) => this.#openChannel(user)));
    }
    for (const { user: index, watched } of this.population.watchers) {
      const user = this.population.user(index);
      const addresses = watched.map((i) => this.population.user(i).address);
      const feed = await openPresence(this.urls[user.home] as string, user, addresses);
      recorder.request(recorder.phase, "presence feed open", feed.status, feed.ms);
      this.#watchers.push(feed);
    }
  }

  async #openChannel(user: User): Promise<void> {
    const { recorder } = this;
    if (user.channel === "sse" || user.channel === "ws") {
      const bridge = new PushBridge(user, this.urls, this.deliver);
      this.bridges.set(user.index, bridge);
      const { status, ms } = await bridge.open();
      recorder.request(
        recorder.phase,
        `bridge open (${bridge.kind})`,
        status === 101 ? 200 : status,
        ms,
      );
    } else if (user.channel === "poll") {
      const url = this.urls[user.home] as string;
      const onAnswer = (status: number, ms: number) =>
        recorder.request(recorder.phase, "poll (held)", status, ms);
      this.polls.push(new PollLoop(user, url, user.home, this.deliver, onAnswer));
    }
  }

  /** Presence events the standing feeds received, snapshots included. */
  presenceEvents(): number {
    return this.#watchers.reduce((sum, feed) => sum + feed.events(), 0);
  }

  /** Server-ended push bridges, each resumed from its cursor. */
  bridgeDrops(): number {
    let drops = 0;
    for (const bridge of this.bridges.values()) drops += bridge.drops;
    return drops;
  }

  async closeStanding(): Promise<void> {
    for (const bridge of this.bridges.values()) bridge.close();
    for (const feed of this.#watchers) feed.close();
    await Promise.all(this.polls.map((poll) => poll.close()));
  }
}
