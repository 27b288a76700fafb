import type { PushTarget, SendOutcome } from "@svc/web-push";
import type { PushSubscriptions, StoredSubscription } from "./subscriptions.js";
import { wakeUpPlaintext } from "./wake-up.js";

/** What became of a wake-up; `coalesced` and `dropped` ones were never sent. */
export type WakeUpOutcome = "sent" | "failed" | "coalesced" | "gone" | "dropped" | "refused";

export interface WakeUpDispatcherOptions {
  subscriptions: PushSubscriptions;
  /** The addresses among these with a live SSE or WebSocket bridge on any instance. */
  liveAmong(addresses: readonly string[]): Promise<ReadonlySet<string>>;
  /** Blobs queued for each of these addresses: the wake-up's `pending`. One statement for all. */
  pending(addresses: readonly string[]): Promise<ReadonlyMap<string, number>>;
  /** One wake-up request, retries included; never throws (see @svc/web-push sendWebPush). */
  send(target: PushTarget, plaintext: Uint8Array): Promise<Pick<SendOutcome, "outcome">>;
  /** At most one wake-up per subscription in this many ms while the address has not fetched. */
  coalesceMs: number;
  now?: () => number;
  /** Wake-up requests in flight at once. Default 64. */
  maxInFlight?: number;
  /** Deposits and requests waiting; past it a deposit's wake-up is dropped. Default 10,000. */
  maxQueued?: number;
  /** Counts each outcome (for the metrics). */
  onOutcome?: (outcome: WakeUpOutcome, count: number) => void;
  /** A storage failure while deciding or after a send; the dispatcher never throws. */
  onError?: (error: unknown) => void;
}

interface Delivery {
  subscription: StoredSubscription;
  plaintext: Uint8Array;
}

export const DEFAULT_MAX_IN_FLIGHT = 64;
export const DEFAULT_MAX_QUEUED = 10_000;
/** Addresses decided together: one statement of each kind serves them all. */
const DECISION_BATCH = 256;

/**
 * Wakes the subscriptions of an address after a deposit, off the request path. Only the instance
 * that took the deposit hears of it, so across instances a deposit causes at most one wake-up per
 * subscription; nothing is sent while the address has a live bridge, and the claim of
 * PushSubscriptions.claim coalesces wake-ups until the address fetches; while wake-ups of the
 * address are still queued or in flight here, a deposit adds nothing.
 */
export class WakeUpDispatcher {
  readonly #options: WakeUpDispatcherOptions;
  readonly #now: () => number;
  readonly #maxInFlight: number;
  readonly #maxQueued: number;
  /** Addresses with a deposit not yet decided on (a second deposit meanwhile adds nothing). */
  readonly #undecided = new Set<string>();
  /**
   * Addresses with wake-ups queued or in flight here, and how many: a deposit meanwhile adds
   * nothing either (the wake-up under way wakes the app), so a push service that hangs does not
   * get the address claimed and queued again each interval.
   */
  readonly #waking = new Map<string, number>();
  readonly #deliveries: Delivery[] = [];
  readonly #idleWaiters = new Set<() => void>();
  #deciding = false;
  #pumpScheduled = false;
  #inFlight = 0;
  #closed = false;

  constructor(options: WakeUpDispatcherOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.#maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED;
    for (const [name, value] of [
      ["coalesceMs", options.coalesceMs],
      ["maxInFlight", this.#maxInFlight],
      ["maxQueued", this.#maxQueued],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < (name === "coalesceMs" ? 0 : 1)) {
        throw new RangeError(
          `${name} must be a ${name === "coalesceMs" ? "non-negative" : "positive"} integer`,
        );
      }
    }
  }

  /** A deposit for `address` committed on this instance. Returns at once. */
  depositCommitted(address: string): void {
    if (this.#closed || this.#undecided.has(address)) return;
    const underWay = this.#waking.get(address);
    if (underWay !== undefined) {
      this.#count("coalesced", underWay);
      return;
    }
    if (this.#undecided.size + this.#deliveries.length >= this.#maxQueued) {
      this.#count("dropped", 1);
      return;
    }
    this.#undecided.add(address);
    this.#decideSoon();
  }

  /** The address fetched its inbox: its next deposit wakes it without waiting out the interval. */
  fetched(address: string): Promise<void> {
    return this.#options.subscriptions.fetched(address);
  }

  /** Resolves once no deposit waits to be decided on and no wake-up is queued or in flight. */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.add(resolve));
  }

  /**
   * Stops taking deposits and drops the wake-ups not yet sent (counted `dropped`); waits for the
   * requests in flight at most `waitMs`, then leaves them to end on their own (their outcome
   * touches no storage any more).
   */
  async close(waitMs = 2000): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const dropped = this.#undecided.size + this.#deliveries.length;
    this.#undecided.clear();
    this.#deliveries.length = 0;
    this.#waking.clear();
    if (dropped > 0) this.#count("dropped", dropped);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.idle(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
      }),
    ]);
    clearTimeout(timer);
  }

  #decideSoon(): void {
    if (this.#deciding || this.#undecided.size === 0 || this.#closed) return;
    this.#deciding = true;
    setImmediate(() => void this.#decide());
  }

  async #decide(): Promise<void> {
    const batch = [...this.#undecided].slice(0, DECISION_BATCH);
    for (const address of batch) this.#undecided.delete(address);
    try {
      await this.#claimAndQueue(batch);
    } catch (error) {
      this.#options.onError?.(error);
    } finally {
      this.#deciding = false;
      this.#decideSoon();
      this.#pump();
      this.#settleIfIdle();
    }
  }

  /**
   * Which subscriptions of these addresses get a wake-up now; queues them. A live address is left
   * out before the claim, so that it keeps its claim for when it goes to sleep; the pending
   * counts are read while the claim runs.
   */
  async #claimAndQueue(addresses: string[]): Promise<void> {
    const live = await this.#options.liveAmong(addresses);
    const asleep = addresses.filter((address) => !live.has(address));
    if (asleep.length === 0) return;
    const [{ claimed, coalesced }, pending] = await Promise.all([
      this.#options.subscriptions.claim(asleep, this.#now(), this.#options.coalesceMs),
      this.#options.pending(asleep),
    ]);
    if (coalesced > 0) this.#count("coalesced", coalesced);
    if (claimed.length === 0) return;
    if (this.#closed) {
      this.#count("dropped", claimed.length);
      return;
    }
    for (const subscription of claimed) {
      const plaintext = wakeUpPlaintext(pending.get(subscription.address) ?? 0);
      this.#deliveries.push({ subscription, plaintext });
      this.#waking.set(subscription.address, (this.#waking.get(subscription.address) ?? 0) + 1);
    }
  }

  /**
   * Starts the queued wake-ups the free slots allow, one per turn of the event loop: a send
   * encrypts and signs before its first wait, and many slots freed at once (requests timing out
   * together) would otherwise run all of that in one go while the deposits' requests wait.
   */
  #pump(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    setImmediate(() => {
      this.#pumpScheduled = false;
      if (this.#closed || this.#inFlight >= this.#maxInFlight) return;
      const delivery = this.#deliveries.shift();
      if (delivery === undefined) return;
      this.#inFlight++;
      void this.#deliver(delivery).finally(() => {
        this.#inFlight--;
        this.#doneWaking(delivery.subscription.address);
        this.#pump();
        this.#settleIfIdle();
      });
      this.#pump();
    });
  }

  async #deliver({ subscription, plaintext }: Delivery): Promise<void> {
    const { endpoint, p256dh, auth, address } = subscription;
    let outcome: WakeUpOutcome;
    try {
      ({ outcome } = await this.#options.send({ endpoint, p256dh, auth }, plaintext));
    } catch (error) {
      this.#options.onError?.(error);
      outcome = "failed";
    }
    if (outcome === "gone" && !this.#closed) {
      try {
        await this.#options.subscriptions.unsubscribe(address, endpoint);
      } catch (error) {
        this.#options.onError?.(error);
      }
    }
    this.#count(outcome, 1);
  }

  #doneWaking(address: string): void {
    const left = (this.#waking.get(address) ?? 0) - 1;
    if (left > 0) this.#waking.set(address, left);
    else this.#waking.delete(address);
  }

  #count(outcome: WakeUpOutcome, count: number): void {
    this.#options.onOutcome?.(outcome, count);
  }

  #isIdle(): boolean {
    return (
      this.#undecided.size === 0 &&
      !this.#deciding &&
      this.#deliveries.length === 0 &&
      this.#inFlight === 0
    );
  }

  #settleIfIdle(): void {
    if (!this.#isIdle()) return;
    for (const resolve of this.#idleWaiters) resolve();
    this.#idleWaiters.clear();
  }
}
