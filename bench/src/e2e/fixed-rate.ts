import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * One way of sending a message to a receiver that is listening: the bare deposit or the client's
 * send. `send` resolves when the server has accepted the message; the receiver calls
 * `clock.delivered(id)` when it holds it (for the client: decrypted).
 */
export interface DeliveryPath {
  clock: DeliveryClock;
  send(n: number): Promise<void>;
  close(): Promise<void>;
}

export interface Round {
  /** Send-to-delivery latencies (ms) of the messages sent in the round. */
  latencies: number[];
  sent: number;
  failed: number;
  /** From the first send to the last send's answer. */
  sendSeconds: number;
  /** From the first send to the last delivery (or the send phase's end, if later). */
  seconds: number;
  /** CPU time of this process (sender and receiver) over the round, in ms. */
  cpuMs: number;
}

/**
 * Sends `perSecond` messages a second for `seconds` on an open loop (a message is due at its
 * time, whether or not the ones before it are done; at most `maxInFlight` outstanding, so a path
 * slower than the rate lowers the achieved rate), then waits up to `settleMs` for the deliveries,
 * so that a backlog of one path is not still being worked off in the next path's round.
 */
export async function atFixedRate(
  path: DeliveryPath,
  first: number,
  options: { perSecond: number; seconds: number; maxInFlight: number; settleMs?: number },
): Promise<Round> {
  const total = Math.round(options.perSecond * options.seconds);
  path.clock.start(first, first + total);
  let inFlight = 0;
  let failed = 0;
  let settled = 0;
  let allSettled = () => {};
  const done = new Promise<void>((resolve) => {
    allSettled = resolve;
  });
  const sendOne = async (n: number) => {
    try {
      await path.send(n);
    } catch (error) {
      if (failed++ === 0) console.error(`send ${n} failed:`, error);
    } finally {
      inFlight--;
      if (++settled === total) allSettled();
    }
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / options.perSecond - performance.now();
    if (wait > 1) await sleep(wait);
    while (inFlight >= options.maxInFlight) await sleep(1);
    inFlight++;
    path.clock.sent(first + i);
    void sendOne(first + i);
  }
  await done;
  const sendEnd = performance.now();
  await path.clock.settle(total - failed, options.settleMs ?? 60_000);
  const end = Math.max(sendEnd, path.clock.lastDelivery);
  const used = process.cpuUsage(cpu);
  return {
    latencies: path.clock.take(),
    sent: total,
    failed,
    sendSeconds: (sendEnd - started) / 1000,
    seconds: (end - started) / 1000,
    cpuMs: (used.user + used.system) / 1000,
  };
}

/** When each message of the current window was sent, and how long each took to arrive. */
export class DeliveryClock {
  #from = 0;
  #to = 0;
  #sentAt = new Map<number, number>();
  #latencies: number[] = [];
  /** performance.now() of the last delivery measured. */
  lastDelivery = 0;

  /** Measures messages first..end-1 from now on; deliveries of others are ignored. */
  start(first: number, end: number): void {
    this.#from = first;
    this.#to = end;
    this.#sentAt.clear();
    this.#latencies = [];
  }

  sent(n: number): void {
    this.#sentAt.set(n, performance.now());
  }

  delivered(n: number): void {
    if (n < this.#from || n >= this.#to) return;
    const sentAt = this.#sentAt.get(n);
    if (sentAt === undefined) return;
    this.lastDelivery = performance.now();
    this.#latencies.push(this.lastDelivery - sentAt);
    this.#sentAt.delete(n);
  }

  async settle(expected: number, timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (this.#latencies.length < expected && performance.now() < deadline) await sleep(20);
  }

  take(): number[] {
    const latencies = this.#latencies;
    this.#latencies = [];
    return latencies;
  }
}
