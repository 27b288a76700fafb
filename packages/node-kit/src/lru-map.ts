/**
 * A map of at most `capacity` entries that drops the least recently used: `get` and `set` make
 * an entry the most recently used, `peek` does not. A capacity of 0 keeps nothing.
 */
export class LruMap<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 0) {
      throw new RangeError("capacity must be a non-negative integer");
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    // Re-inserted: the Map's insertion order is the order of use.
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** The value of `key`, without making it the most recently used. */
  peek(key: K): V | undefined {
    return this.#entries.get(key);
  }

  set(key: K, value: V): void {
    if (this.capacity === 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
