import type { ServerResponse } from "node:http";
import type { PingTicker } from "./pings.js";

/** After asking a connection to end, how long it may take to flush before it is destroyed. */
export const END_GRACE_MS = 1000;
const PING = ": ping\n\n";

/**
 * Server-Sent Events written straight to the node response: no web stream in between, so an
 * idle stream costs little more than its socket. The connection's close event (never a write
 * error) is what tells the owner it is gone.
 */
export class EventStream {
  readonly #res: ServerResponse;
  readonly #pings: PingTicker;
  readonly #ping = () => this.write(PING);
  #closed = false;

  constructor(res: ServerResponse, pings: PingTicker, requestId: string, onClose: () => void) {
    this.#res = res;
    this.#pings = pings;
    res.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
      "X-Request-Id": requestId,
    });
    res.flushHeaders();
    res.socket?.setKeepAlive(true, pings.intervalMs);
    pings.add(this.#ping);
    res.once("close", () => {
      this.#closed = true;
      pings.delete(this.#ping);
      onClose();
    });
  }

  /** One event: `event:`, optional `id:`, one `data:` line of JSON. */
  event(name: string, data: unknown, id?: number): void {
    const idLine = id === undefined ? "" : `id: ${id}\n`;
    this.write(`${idLine}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  unsentBytes(): number {
    // A response's writableLength already counts its socket's.
    return this.#res.writableLength;
  }

  end(): void {
    if (this.#closed) return;
    this.#pings.delete(this.#ping);
    this.#res.end();
    setTimeout(() => this.#res.destroy(), END_GRACE_MS).unref();
  }

  write(chunk: string): void {
    if (this.#closed || this.#res.writableEnded) return;
    // Corked and uncorked here, the chunk leaves at once in one write; left to node, it would
    // leave on the next tick, after whatever else this turn does (such as answering the deposit
    // that produced the envelope).
    this.#res.cork();
    this.#res.write(chunk);
    this.#res.uncork();
  }
}
