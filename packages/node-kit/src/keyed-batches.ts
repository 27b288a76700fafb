import type { KeyedSerial } from "@svc/canonical";

interface Waiting<I, R> {
  item: I;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Items of one key, applied in batches on a KeyedSerial: a batch starts when the key's task
 * before it ends and takes every item queued until then, so that items arriving while one
 * batch runs share the next. `apply` answers each item of a batch, in order; each caller
 * resolves only when its batch has been applied (or rejects with it).
 */
export class KeyedBatches<I, R> {
  readonly #serial: KeyedSerial;
  readonly #apply: (key: string, items: readonly I[]) => Promise<R[]>;
  readonly #queued = new Map<string, Waiting<I, R>[]>();

  constructor(serial: KeyedSerial, apply: (key: string, items: readonly I[]) => Promise<R[]>) {
    this.#serial = serial;
    this.#apply = apply;
  }

  add(key: string, item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const waiting = { item, resolve, reject };
      const queued = this.#queued.get(key);
      if (queued) {
        queued.push(waiting);
        return;
      }
      const batch = [waiting];
      this.#queued.set(key, batch);
      this.#serial
        .run(key, () => {
          // Taken: later items wait for the next batch.
          this.#queued.delete(key);
          return this.#apply(
            key,
            batch.map((each) => each.item),
          );
        })
        .then(
          (results) => {
            for (const [index, each] of batch.entries()) each.resolve(results[index] as R);
          },
          (error: unknown) => {
            for (const each of batch) each.reject(error);
          },
        );
    });
  }
}
