/**
 * Runs tasks one at a time, in call order: each starts once the one before it has settled,
 * whether it resolved or rejected.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}

/**
 * A SerialQueue per key: tasks of one key run one at a time, in call order; tasks of different
 * keys run at once. A key is forgotten as soon as its last task settles.
 */
export class KeyedSerial {
  readonly #queues = new Map<string, { queue: SerialQueue; tasks: number }>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let entry = this.#queues.get(key);
    if (entry === undefined) {
      entry = { queue: new SerialQueue(), tasks: 0 };
      this.#queues.set(key, entry);
    }
    const queued = entry;
    queued.tasks++;
    const result = queued.queue.run(task);
    const settled = () => {
      if (--queued.tasks === 0) this.#queues.delete(key);
    };
    result.then(settled, settled);
    return result;
  }

  /** Keys with a task running or queued. */
  get size(): number {
    return this.#queues.size;
  }
}
