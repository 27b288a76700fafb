import type { KeyedSerial } from "@svc/canonical";
import { createBatcher } from "./batcher.js";

/**
 * Items of one key, applied in batches on a KeyedSerial: a batch starts when the key's task
 * before it ends and takes every item queued until then, so that items arriving while one
 * batch runs share the next. `apply` answers each item of a batch, in order; each caller
 * resolves only when its batch has been applied (or rejects with it).
 */
export class KeyedBatches<I, R> {
  readonly #serial: KeyedSerial;
  readonly #apply: (key: string, items: readonly I[]) => Promise<R[]>;
  readonly #batchers = new Map<string, (item: I) => Promise<R>>();

  constructor(serial: KeyedSerial, apply: (key: string, items: readonly I[]) => Promise<R[]>) {
    this.#serial = serial;
    this.#apply = apply;
  }

  add(key: string, item: I): Promise<R> {
    let batcher = this.#batchers.get(key);
    if (batcher === undefined) {
      batcher = createBatcher((items: I[]) => this.#apply(key, items), {
        // The batch being applied, and the next one waiting for its turn on the serial.
        concurrency: 2,
        maxBatch: Number.POSITIVE_INFINITY,
        start: "now",
        turn: (task) => this.#serial.run(key, task),
        onIdle: () => this.#batchers.delete(key),
      });
      this.#batchers.set(key, batcher);
    }
    return batcher(item);
  }
}
