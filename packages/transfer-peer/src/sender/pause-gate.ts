import { untilAbort } from "./wait.js";

/**
 * Lets the lanes' requests through while open. Closing it stops new requests and resolves once
 * those already under way have settled, so that a pause reaches the receiver after every chunk
 * sent before it.
 */
export class PauseGate {
  #opened: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;
  readonly #running = new Set<Promise<unknown>>();

  get isOpen(): boolean {
    return this.#release === undefined;
  }

  /** Resolves when the gate is open. */
  async wait(signal: AbortSignal): Promise<void> {
    while (this.#release !== undefined) await untilAbort(this.#opened, signal);
  }

  /** Runs `work` once the gate is open; a close() meanwhile waits for it to settle. */
  async run<T>(work: () => Promise<T>, signal: AbortSignal): Promise<T> {
    await this.wait(signal);
    const running = work();
    this.#running.add(running);
    try {
      return await running;
    } finally {
      this.#running.delete(running);
    }
  }

  /** Stops new work; resolves once the work already started has settled. */
  async close(): Promise<void> {
    if (this.#release === undefined) {
      this.#opened = new Promise((resolve) => {
        this.#release = resolve;
      });
    }
    await Promise.allSettled([...this.#running]);
  }

  open(): void {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }
}
