/** The heartbeat of both SSE routes and the WebSocket route (D7: every 15 s). */
export const PING_INTERVAL_MS = 15_000;

/**
 * One timer for every open connection instead of one each: ticks while any connection is
 * registered, stops when none is.
 */
export class PingTicker {
  readonly #connections = new Set<() => void>();
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly intervalMs: number = PING_INTERVAL_MS) {
    if (!(intervalMs > 0)) throw new RangeError("intervalMs must be positive");
  }

  add(ping: () => void): void {
    this.#connections.add(ping);
    this.#timer ??= setInterval(() => {
      for (const each of [...this.#connections]) each();
    }, this.intervalMs);
  }

  delete(ping: () => void): void {
    this.#connections.delete(ping);
    if (this.#connections.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }
}
