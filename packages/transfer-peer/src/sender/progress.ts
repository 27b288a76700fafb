/** A `progress` event: bytes the receiver has acknowledged, of `total`. */
export interface Progress {
  bytes: number;
  total: number;
  /** Bytes per second, smoothed over the last few seconds. */
  rate: number;
  /** undefined until there is a rate to divide by. */
  etaSeconds: number | undefined;
}

/** Seconds over which the rate forgets; long enough to ride out one lane's retry. */
const SMOOTHING_SECONDS = 3;

/**
 * The acknowledged-bytes rate as an exponentially weighted average in time: each sample weighs by
 * the time it covers, so a burst of acks from several lanes moves the rate no more than the bytes
 * warrant.
 */
export class RateMeter {
  readonly #total: number;
  readonly #now: () => number;
  #bytes: number;
  #at: number;
  #rate: number | undefined;

  constructor(total: number, bytes: number, now: () => number = () => performance.now() / 1000) {
    this.#total = total;
    this.#bytes = bytes;
    this.#now = now;
    this.#at = now();
  }

  update(bytes: number): Progress {
    const at = this.#now();
    const seconds = at - this.#at;
    if (seconds > 0) {
      const sample = (bytes - this.#bytes) / seconds;
      const weight = 1 - Math.exp(-seconds / SMOOTHING_SECONDS);
      this.#rate = this.#rate === undefined ? sample : this.#rate + weight * (sample - this.#rate);
      this.#at = at;
      this.#bytes = bytes;
    }
    const rate = Math.max(0, this.#rate ?? 0);
    return {
      bytes,
      total: this.#total,
      rate,
      etaSeconds: rate > 0 ? (this.#total - bytes) / rate : undefined,
    };
  }
}
