import type { CommittedDeposit } from "@svc/inbox";
import type { BridgeEnvelope } from "@svc/protocol";
import type { AdapterSink, BridgeAdapter } from "./adapter.js";
import { PresenceWatch } from "./presence-watch.js";
import { BATCH_LIMIT, PushBridge } from "./push-bridge.js";
import type {
  EnvelopeSink,
  EnvelopeSource,
  PresenceChange,
  PresenceSink,
  PushTransport,
} from "./types.js";

/** How often an instance refreshes its heartbeat and reaps dead instances. */
export const DEFAULT_HEARTBEAT_MS = 10_000;

export interface BridgeHubOptions {
  source: EnvelopeSource;
  adapter: BridgeAdapter;
  now?: () => number;
  /**
   * Called on the one instance whose change made the global bridge count of an address cross
   * 0<->1 (or that reaped a dead instance's last bridges): once per crossing, cluster-wide.
   */
  onCrossing?: (change: PresenceChange) => void;
  /** Background failures (database errors); the hub never throws them. */
  onError?: (error: unknown, during: string) => void;
  heartbeatMs?: number;
}

export interface OpenBridge {
  address: string;
  since: number;
  transport: PushTransport;
  sink: EnvelopeSink;
}

/** Returned to the owner of a connection; call `close()` once the connection has closed. */
export interface BridgeHandle {
  close(): void;
}

interface Wakeable {
  wake(): void;
}

/**
 * Per-address fan-out of deposits to bridges, long-polls and presence feeds on one instance,
 * and this instance's share of the cluster-wide presence counts.
 */
export class BridgeHub {
  readonly #source: EnvelopeSource;
  readonly #adapter: BridgeAdapter;
  readonly #now: () => number;
  readonly #onCrossing: (change: PresenceChange) => void;
  readonly #onError: (error: unknown, during: string) => void;
  readonly #heartbeatMs: number;

  readonly #wakeables = new Map<string, Set<Wakeable>>();
  readonly #bridges = new Map<PushBridge, PushTransport>();
  readonly #watches = new Map<string, Set<PresenceWatch>>();
  readonly #allWatches = new Set<PresenceWatch>();
  /** Live push bridges per address on this instance, and what the adapter last stored. */
  readonly #local = new Map<string, number>();
  readonly #stored = new Map<string, number>();
  readonly #syncing = new Map<string, Promise<void>>();
  readonly #syncAgain = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #beating = false;
  #closed = false;

  constructor(options: BridgeHubOptions) {
    this.#source = options.source;
    this.#adapter = options.adapter;
    this.#now = options.now ?? Date.now;
    this.#onCrossing = options.onCrossing ?? (() => {});
    this.#onError = options.onError ?? (() => {});
    this.#heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    if (!(this.#heartbeatMs > 0)) throw new RangeError("heartbeatMs must be positive");
  }

  async start(): Promise<void> {
    const sink: AdapterSink = {
      deposit: (address) => this.#wake(address),
      presence: (change) => this.#relay(change),
      resync: () => this.#resync(),
    };
    await this.#adapter.start(sink);
    this.#timer = setInterval(() => void this.#heartbeat(), this.#heartbeatMs);
    this.#timer.unref();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Live SSE and WebSocket bridges on this instance. */
  liveBridges(): number {
    return this.#bridges.size;
  }

  /**
   * Bytes handed to this instance's push bridges and presence feeds that their clients have not
   * taken yet: in all, and on the one connection holding the most. Each connection's share is
   * bounded: past MAX_UNSENT_BYTES the next envelope or change cuts it off.
   */
  unsentBytes(): { total: number; largest: number } {
    let total = 0;
    let largest = 0;
    for (const connection of [...this.#bridges.keys(), ...this.#allWatches]) {
      const unsent = connection.unsentBytes();
      total += unsent;
      largest = Math.max(largest, unsent);
    }
    return { total, largest };
  }

  /** Addresses with a live push bridge, and open presence feeds, on this instance. */
  stats(): { connectedAddresses: number; presenceSubscriptions: number } {
    return { connectedAddresses: this.#local.size, presenceSubscriptions: this.#allWatches.size };
  }

  /**
   * The addresses among `addresses` with a live SSE or WebSocket bridge on any instance: this
   * instance's own count first, then the adapter's for the rest, once this instance's own
   * count of them is written (a bridge just closed here is not taken for one elsewhere).
   * Long-polls do not count.
   */
  async liveAmong(addresses: readonly string[]): Promise<Set<string>> {
    const live = new Set(addresses.filter((address) => this.#local.has(address)));
    const elsewhere = addresses.filter((address) => !live.has(address));
    if (elsewhere.length === 0) return live;
    await Promise.all(elsewhere.map((address) => this.#syncing.get(address)));
    for (const address of await this.#adapter.online(elsewhere)) live.add(address);
    return live;
  }

  /**
   * The inbox committed `deposit` on this instance: this instance's bridges get it at once (see
   * PushBridge.offer), and the other instances are told unless its transaction did that.
   */
  depositCommitted(deposit: CommittedDeposit): void {
    const wakeables = this.#wakeables.get(deposit.address);
    if (wakeables) {
      for (const wakeable of [...wakeables]) {
        if (wakeable instanceof PushBridge) wakeable.offer(deposit);
        else wakeable.wake();
      }
    }
    if (deposit.notified) return;
    this.#adapter
      .announceDeposit(deposit.address)
      .catch((error: unknown) => this.#onError(error, "announcing a deposit"));
  }

  /** Subscribes first, then replays the backlog after `since`, then delivers live envelopes. */
  openBridge(open: OpenBridge): BridgeHandle {
    const { address, since, transport, sink } = open;
    if (this.#closed) {
      sink.end("shutdown");
      return { close() {} };
    }
    const bridge = new PushBridge(address, since, this.#source, sink, (ended, reason, error) => {
      if (reason === "error") this.#onError(error, "delivering envelopes");
      this.#forgetBridge(ended);
    });
    this.#bridges.set(bridge, transport);
    this.#addWakeable(address, bridge);
    this.#count(address, 1);
    bridge.wake();
    return {
      close: () => {
        bridge.detach();
        this.#forgetBridge(bridge);
      },
    };
  }

  /**
   * A long-poll: envelopes after `since` at once if any (at most 100), else the first that arrive
   * within `timeoutMs`, else none. Long-polls do not count for presence.
   */
  async poll(
    address: string,
    since: number,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<BridgeEnvelope[]> {
    let woken = false;
    let release: (() => void) | undefined;
    const waiter: Wakeable = {
      wake() {
        woken = true;
        release?.();
      },
    };
    const deadline = performance.now() + timeoutMs;
    this.#addWakeable(address, waiter);
    signal?.addEventListener("abort", waiter.wake, { once: true });
    try {
      for (;;) {
        if (this.#closed || signal?.aborted) return [];
        woken = false;
        const batch = await this.#source.envelopesSince(address, since, BATCH_LIMIT);
        if (batch.length > 0) return batch;
        const remaining = deadline - performance.now();
        if (remaining <= 0) return [];
        if (!woken) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, remaining);
            release = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          release = undefined;
        }
      }
    } finally {
      signal?.removeEventListener("abort", waiter.wake);
      this.#removeWakeable(address, waiter);
    }
  }

  /** A presence feed of `addresses`: a snapshot of each, then their changes. */
  watchPresence(addresses: readonly string[], sink: PresenceSink): BridgeHandle {
    if (this.#closed) {
      sink.end("shutdown");
      return { close() {} };
    }
    const watch = new PresenceWatch([...new Set(addresses)], sink, (ended) =>
      this.#forgetWatch(ended),
    );
    this.#allWatches.add(watch);
    for (const address of watch.addresses) {
      const watches = this.#watches.get(address) ?? new Set();
      this.#watches.set(address, watches);
      watches.add(watch);
    }
    this.#adapter.online(watch.addresses).then(
      (online) => watch.open(online, this.#now()),
      (error: unknown) => {
        this.#onError(error, "reading presence");
        watch.end("error");
      },
    );
    return {
      close: () => {
        watch.detach();
        this.#forgetWatch(watch);
      },
    };
  }

  /** Ends every bridge, poll and presence feed, withdraws this instance's presence, stops. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    for (const bridge of [...this.#bridges.keys()]) bridge.end("shutdown");
    for (const watch of [...this.#allWatches]) watch.end("shutdown");
    for (const wakeables of [...this.#wakeables.values()]) for (const w of [...wakeables]) w.wake();
    while (this.#syncing.size > 0) await Promise.all(this.#syncing.values());
    // The database may already be gone; a crashed instance's rows expire with its heartbeat.
    await this.#adapter.close().catch((error: unknown) => this.#onError(error, "closing"));
  }

  #forgetBridge(bridge: PushBridge): void {
    if (!this.#bridges.delete(bridge)) return;
    this.#removeWakeable(bridge.address, bridge);
    this.#count(bridge.address, -1);
  }

  #forgetWatch(watch: PresenceWatch): void {
    if (!this.#allWatches.delete(watch)) return;
    for (const address of watch.addresses) {
      const watches = this.#watches.get(address);
      watches?.delete(watch);
      if (watches?.size === 0) this.#watches.delete(address);
    }
  }

  #addWakeable(address: string, wakeable: Wakeable): void {
    const wakeables = this.#wakeables.get(address) ?? new Set();
    this.#wakeables.set(address, wakeables);
    wakeables.add(wakeable);
  }

  #removeWakeable(address: string, wakeable: Wakeable): void {
    const wakeables = this.#wakeables.get(address);
    wakeables?.delete(wakeable);
    if (wakeables?.size === 0) this.#wakeables.delete(address);
  }

  #wake(address: string): void {
    const wakeables = this.#wakeables.get(address);
    if (wakeables) for (const wakeable of [...wakeables]) wakeable.wake();
  }

  #relay(change: PresenceChange): void {
    const watches = this.#watches.get(change.address);
    if (watches) for (const watch of [...watches]) watch.receive(change);
  }

  /** Notifications may have been lost: every bridge and poll queries again, feeds re-read. */
  #resync(): void {
    for (const address of [...this.#wakeables.keys()]) this.#wake(address);
    const watches = [...this.#allWatches].filter((watch) => watch.opened);
    const addresses = [...new Set(watches.flatMap((watch) => watch.addresses))];
    this.#adapter.online(addresses).then(
      (online) => {
        const at = this.#now();
        for (const watch of watches) {
          for (const address of watch.addresses) {
            watch.receive({ address, online: online.has(address), at });
          }
        }
      },
      (error: unknown) => this.#onError(error, "reading presence"),
    );
  }

  #count(address: string, delta: number): void {
    const bridges = (this.#local.get(address) ?? 0) + delta;
    if (bridges === 0) this.#local.delete(address);
    else this.#local.set(address, bridges);
    this.#sync(address);
  }

  /** Writes the local count of `address` through the adapter, one write at a time per address. */
  #sync(address: string): void {
    if (this.#syncing.has(address)) {
      this.#syncAgain.add(address);
      return;
    }
    const run = async () => {
      try {
        do {
          this.#syncAgain.delete(address);
          const bridges = this.#local.get(address) ?? 0;
          if (bridges === (this.#stored.get(address) ?? 0)) continue;
          const { crossing } = await this.#adapter.syncPresence(address, bridges, this.#now());
          if (bridges === 0) this.#stored.delete(address);
          else this.#stored.set(address, bridges);
          if (crossing) this.#onCrossing(crossing);
        } while (this.#syncAgain.has(address));
      } catch (error) {
        this.#onError(error, "storing presence"); // the next heartbeat tries again
      } finally {
        this.#syncing.delete(address);
      }
    };
    this.#syncing.set(address, run());
  }

  async #heartbeat(): Promise<void> {
    if (this.#beating || this.#closed) return;
    this.#beating = true;
    try {
      const { crossings, reregistered } = await this.#adapter.heartbeat(this.#now());
      for (const crossing of crossings) this.#onCrossing(crossing);
      if (reregistered) this.#stored.clear();
      for (const address of new Set([...this.#local.keys(), ...this.#stored.keys()])) {
        if ((this.#local.get(address) ?? 0) !== (this.#stored.get(address) ?? 0)) {
          this.#sync(address);
        }
      }
    } catch (error) {
      this.#onError(error, "heartbeat");
    } finally {
      this.#beating = false;
    }
  }
}
