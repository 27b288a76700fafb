/**
 * Runs tasks of one key one at a time, in call order; tasks of different keys run at once. A key
 * is forgotten as soon as its last task settles.
 */
export class KeyedSerial {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const result = (this.#tails.get(key) ?? Promise.resolve()).then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** Keys with a task running or queued. */
  get size(): number {
    return this.#tails.size;
  }
}
