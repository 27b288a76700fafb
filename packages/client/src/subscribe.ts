import type { BridgeEnvelope } from "@svc/protocol";
import type { SvcApi } from "./api.js";
import { sleep } from "./http.js";
import type { ReceivedMessage } from "./inbound.js";
import { type Deliver, inboundOf, type Mailbox } from "./mailbox.js";
import type { ResolvedOptions } from "./options.js";
import type { StoredState } from "./state.js";
import { isRefusal, isTransient } from "./transient.js";
import { pollTransport } from "./transports/poll.js";
import { sseTransport } from "./transports/sse.js";
import type { Transport, TransportContext, TransportName } from "./transports/transport.js";
import { webSocketTransport } from "./transports/websocket.js";

export interface SubscribeOptions {
  /** Tried in this order on every (re)connect; default ["ws", "sse", "poll"]. */
  transports?: TransportName[];
  signal?: AbortSignal;
  /** Called each time a bridge is connected, with the transport that connected. */
  onTransport?: (transport: TransportName) => void;
  /**
   * Called once when the server is lost (a bridge dropped, or the first drain or connect
   * failed), with why; the subscription keeps retrying, quietly, until `onTransport` says it is
   * back. Without it, that failure goes to onError.
   */
  onDisconnect?: (error: unknown) => void;
  /** Overrides the client's onError for this subscription. */
  onError?: (error: unknown) => void;
}

export interface Subscription {
  close(): void;
  /** Resolves once the subscription has stopped; rejects if it stopped on a refusal (a 4xx). */
  readonly closed: Promise<void>;
}

export interface SubscribeHost {
  api: SvcApi;
  mailbox: Mailbox;
  options: ResolvedOptions;
  state(): StoredState;
  signingKey(): Uint8Array;
  /** After the drain: replenish one-time prekeys if the server is low. */
  afterBatch(): void;
}

const TRANSPORTS: Record<TransportName, Transport> = {
  ws: webSocketTransport,
  sse: sseTransport,
  poll: pollTransport,
};

/** A connection shorter than this counts as a failure for the reconnect backoff. */
const STABLE_MS = 5000;
const MAX_BACKOFF_MS = 30_000;
/** The wait after `failures` failed attempts in a row: 250 ms, doubling, at most 30 s. */
const backoffMs = (failures: number) => Math.min(MAX_BACKOFF_MS, 250 * 2 ** (failures - 1));

/**
 * Drains the inbox, then stays connected over the first transport that connects, reconnecting
 * (from the top of the list, after a backoff if connections keep failing) from the cursor.
 */
export function subscribe(
  host: SubscribeHost,
  onMessage: (message: ReceivedMessage) => void | Promise<void>,
  options: SubscribeOptions = {},
): Subscription {
  if (typeof onMessage !== "function") throw new TypeError("onMessage must be a function");
  const names = options.transports ?? ["ws", "sse", "poll"];
  if (names.length === 0 || names.some((name) => !(name in TRANSPORTS))) {
    throw new RangeError('options.transports must list "ws", "sse" or "poll"');
  }
  const controller = new AbortController();
  const { signal } = controller;
  if (options.signal?.aborted) controller.abort(options.signal.reason);
  options.signal?.addEventListener("abort", () => controller.abort(options.signal?.reason), {
    once: true,
  });
  const report = options.onError ?? host.options.onError;
  const deliver: Deliver = onMessage;

  let since = 0;
  let queue: Promise<void> = Promise.resolve();
  /**
   * A batch whose handling failed as a whole (the store could not be locked or written) is tried
   * again, in turn and after a backoff, until it goes through or the subscription closes: the
   * bridge does not send it again while the connection lasts. Only the first failure is reported.
   */
  const handle = async (envelopes: BridgeEnvelope[]): Promise<void> => {
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        const outcomes = await host.mailbox.process(envelopes.map(inboundOf));
        await host.mailbox.settle(outcomes, deliver);
        since = Math.max(since, ...envelopes.map((e) => e.receivedAt));
        return;
      } catch (error) {
        if (attempt === 0) report(error);
      }
      await sleep(backoffMs(attempt + 1), signal).catch(() => undefined);
    }
  };
  const process = (envelopes: BridgeEnvelope[]): Promise<void> => {
    queue = queue.then(() => handle(envelopes));
    return queue;
  };

  const context: TransportContext = {
    url: (kind, from) =>
      host.api.bridgeUrl(
        kind === "ws" ? "ws" : "stream",
        { address: host.state().address, since: from },
        host.signingKey(),
      ),
    poll: async (from, timeoutMs) =>
      (
        await host.api.bridgePoll(
          { address: host.state().address, since: from, timeoutMs },
          host.signingKey(),
          { signal },
        )
      ).envelopes,
    since: () => since,
    deliver: process,
    fetch: host.options.fetch,
    WebSocket: host.options.WebSocket,
    signal,
  };

  // Set from the first failure of an outage until a bridge connects again: the failures between
  // are the same outage and are not reported again.
  let down = false;
  const lost = (error: unknown) => {
    if (down || signal.aborted) return;
    down = true;
    (options.onDisconnect ?? report)(error);
  };
  let failures = 0;
  const backoff = () => sleep(backoffMs(failures), signal);

  /** The first drain, retried like a connection until it goes through once. */
  async function drainOnce(): Promise<void> {
    for (;;) {
      try {
        await host.mailbox.drain(deliver, signal);
        failures = 0;
        return;
      } catch (error) {
        if (signal.aborted || !isTransient(error)) throw error;
        lost(error);
      }
      failures++;
      await backoff();
    }
  }

  async function run(): Promise<void> {
    await drainOnce();
    host.afterBatch();
    since = host.state().cursor;
    while (!signal.aborted) {
      const connected = await connectFirst(names, context, report, down);
      if ("name" in connected) {
        const openedAt = Date.now();
        down = false;
        options.onTransport?.(connected.name);
        // Messages whose handler failed before are offered again on each connect, in turn with
        // what the bridge delivers: one the bridge is handing over is not offered twice.
        queue = queue.then(async () => {
          try {
            await host.mailbox.settle(await host.mailbox.unfinished(), deliver);
          } catch (error) {
            report(error);
          }
        });
        const reason = await connected.ended;
        await queue;
        if (signal.aborted) break;
        if (reason !== undefined) lost(reason);
        failures = Date.now() - openedAt >= STABLE_MS ? 0 : failures + 1;
      } else {
        if (connected.failure !== undefined) lost(connected.failure);
        failures++;
      }
      if (failures > 0) await backoff();
    }
  }

  const closed = run()
    .catch((error: unknown) => {
      if (!signal.aborted) throw error;
    })
    .finally(() => queue);
  return { close: () => controller.abort(), closed };
}

/**
 * The first transport that connects, or the first failure when none does; a refusal is thrown.
 * Failures of transports tried before one that connects are reported, unless `quiet` (during an
 * outage, which the connection ends).
 */
async function connectFirst(
  names: TransportName[],
  context: TransportContext,
  report: (error: unknown) => void,
  quiet: boolean,
): Promise<{ name: TransportName; ended: Promise<unknown> } | { failure: unknown }> {
  const failures: unknown[] = [];
  for (const name of names) {
    if (context.signal.aborted) return { failure: undefined };
    try {
      const connection = await TRANSPORTS[name](context);
      if (!quiet) for (const failure of failures) report(failure);
      return { name, ended: connection.ended };
    } catch (error) {
      if (context.signal.aborted) return { failure: undefined };
      if (isRefusal(error)) throw error;
      failures.push(error);
    }
  }
  return { failure: failures[0] };
}
