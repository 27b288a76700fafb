import { performance } from "node:perf_hooks";
import { bridgeUrl, presenceUrl } from "@svc/test-client";
import { type KeepAliveSockets, keepAliveSockets } from "@svc/test-client/node";
import type { User } from "./population.js";
import { type HeldConnection, openEventStream, openWebSocket } from "./streams.js";

/** What every bridge transport sends per blob (protocol.md §10, Delivery). */
export interface Envelope {
  from: string;
  bytes: string;
  receivedAt: number;
  msgId: string;
}

/** Called for every envelope a user's bridge or poll receives, with the instance it came from. */
export type EnvelopeHandler = (user: User, envelope: Envelope, instance: number) => void;

/** How long a long-poll is held when nothing is pending. */
export const POLL_TIMEOUT_MS = 5000;
const RECONNECT_DELAY_MS = 100;

/**
 * A user's SSE or WebSocket bridge, kept open: it resumes from its cursor (the last receivedAt it
 * got) when the server ends it, and when told to reconnect, on the same or another instance.
 * Envelopes are passed on as they come, repeats included: a repeat is the server's fault, and
 * the invariants count it.
 */
export class PushBridge {
  cursor = 0;
  instance: number;
  /** Times the server or the network ended the bridge. */
  drops = 0;
  #connection: HeldConnection | undefined;
  /** Bumped by every open: a connection from an earlier open is closed and its events ignored. */
  #generation = 0;
  #stopped = false;

  constructor(
    readonly user: User,
    readonly urls: readonly string[],
    readonly onEnvelope: EnvelopeHandler,
  ) {
    this.instance = user.home;
  }

  get kind(): "sse" | "ws" {
    return this.user.channel === "ws" ? "ws" : "sse";
  }

  /** (Re)opens on `instance`; resolves with the status and the time to open, in ms. */
  async open(instance = this.instance): Promise<{ status: number; ms: number }> {
    this.#connection?.close();
    this.#connection = undefined;
    this.instance = instance;
    const generation = ++this.#generation;
    const current = () => generation === this.#generation && !this.#stopped;
    const { user } = this;
    const base = this.urls[instance] as string;
    const kind = this.kind === "ws" ? "ws" : "stream";
    const url = bridgeUrl(base, kind, user.inbox, user.address, { since: this.cursor });
    const handlers = {
      onEvent: (event: string, data: string) => {
        if (!current() || (event !== "envelope" && event !== "message")) return;
        const envelope = JSON.parse(data) as Envelope;
        this.cursor = Math.max(this.cursor, envelope.receivedAt);
        this.onEnvelope(user, envelope, instance);
      },
      onEnd: () => {
        if (!current()) return;
        this.drops++;
        setTimeout(() => {
          if (current()) void this.open(instance);
        }, RECONNECT_DELAY_MS);
      },
    };
    const started = performance.now();
    const connection = await (this.kind === "ws"
      ? openWebSocket(url, handlers)
      : openEventStream(url, handlers));
    const ms = performance.now() - started;
    if (current()) this.#connection = connection;
    else connection.close();
    return { status: connection.status, ms };
  }

  close(): void {
    this.#stopped = true;
    this.#connection?.close();
  }
}

/**
 * A user's long-poll loop: each poll is signed with its cursor, held up to POLL_TIMEOUT_MS, and
 * followed at once by the next one.
 */
export class PollLoop {
  cursor = 0;
  #stopped = false;
  readonly #sockets: KeepAliveSockets;
  readonly #done: Promise<void>;

  constructor(
    readonly user: User,
    readonly url: string,
    readonly instance: number,
    readonly onEnvelope: EnvelopeHandler,
    readonly onAnswer: (status: number, ms: number) => void,
  ) {
    this.#sockets = keepAliveSockets(url, 1);
    this.#done = this.#run();
  }

  async #run(): Promise<void> {
    const { user } = this;
    while (!this.#stopped) {
      const path = bridgeUrl("", "poll", user.inbox, user.address, {
        since: this.cursor,
        extra: { timeoutMs: String(POLL_TIMEOUT_MS) },
      });
      const started = performance.now();
      const answer = await this.#sockets(path, { method: "GET" }).catch(() => undefined);
      if (this.#stopped) return;
      this.onAnswer(answer?.status ?? 0, performance.now() - started);
      if (answer?.status !== 200) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      const { envelopes } = JSON.parse(answer.body) as { envelopes: Envelope[] };
      for (const envelope of envelopes) {
        this.cursor = Math.max(this.cursor, envelope.receivedAt);
        this.onEnvelope(user, envelope, this.instance);
      }
    }
  }

  async close(): Promise<void> {
    this.#stopped = true;
    this.#sockets.close();
    await this.#done;
  }
}

/**
 * A presence feed of `watcher` over `watched`; resolves once the snapshot (one `presence` event
 * per distinct watched address) is in, with the time that took. `events` counts every event.
 */
export async function openPresence(
  base: string,
  watcher: User,
  watched: readonly string[],
): Promise<{ status: number; ms: number; events: () => number; close: () => void }> {
  const url = presenceUrl(base, watcher.inbox, watcher.address, [...watched]);
  const distinct = new Set(watched).size;
  let events = 0;
  let snapshot = 0;
  let snapshotDone = () => {};
  const complete = new Promise<void>((resolve) => {
    snapshotDone = resolve;
  });
  const started = performance.now();
  const connection = await openEventStream(url, {
    onEvent: (event) => {
      events++;
      if (event === "presence" && ++snapshot === distinct) snapshotDone();
    },
    onEnd: () => snapshotDone(),
  });
  if (connection.status === 200) await complete;
  return {
    status: connection.status === 200 && snapshot < distinct ? 0 : connection.status,
    ms: performance.now() - started,
    events: () => events,
    close: () => connection.close(),
  };
}
