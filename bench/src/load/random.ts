/**
 * A seeded pseudo-random stream (mulberry32): the same seed and stream name give the same
 * numbers on every run and machine, so a load schedule can be replayed exactly. Not for keys.
 */
export class SeededRandom {
  #state: number;

  /** `stream` separates independent sequences drawn from one seed (e.g. "users", "run"). */
  constructor(seed: number, stream = "") {
    if (!Number.isSafeInteger(seed)) throw new TypeError("seed must be a safe integer");
    this.#state = (Math.imul(seed | 0, 0x9e3779b1) ^ fnv1a(stream)) >>> 0;
  }

  uint32(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    return this.uint32() / 2 ** 32;
  }

  /** An integer in [0, n). */
  below(n: number): number {
    if (!Number.isSafeInteger(n) || n < 1) throw new RangeError("n must be a positive integer");
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("items must not be empty");
    return items[this.below(items.length)] as T;
  }

  /** A key drawn with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let draw = this.next() * total;
    for (const [key, weight] of entries) {
      draw -= weight;
      if (draw < 0) return key;
    }
    return (entries[entries.length - 1] as [K, number])[0];
  }

  /** An exponentially distributed gap with this mean: Poisson arrivals. */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }

  /** `count` distinct integers from [0, n), in the order drawn. */
  distinct(count: number, n: number): number[] {
    if (count > n) throw new RangeError(`cannot draw ${count} distinct values below ${n}`);
    const drawn = new Set<number>();
    while (drawn.size < count) drawn.add(this.below(n));
    return [...drawn];
  }

  bytes(length: number): Uint8Array {
    const bytes = new Uint8Array(length);
    const view = new DataView(bytes.buffer);
    let i = 0;
    for (; i + 4 <= length; i += 4) view.setUint32(i, this.uint32());
    for (; i < length; i++) bytes[i] = this.uint32() & 0xff;
    return bytes;
  }
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
