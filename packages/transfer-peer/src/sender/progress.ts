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
 * warrant. The average starts from 0 and is divided by the weight gathered so far, so that the
 * first seconds show the rate so far instead of a fraction of it.
 */
export class RateMeter {
  readonly #total: number;
  readonly #now: () => number;
  readonly #startedAt: number;
  #bytes: number;
  #at: number;
  #average = 0;

  constructor(total: number, bytes: number, now: () => number = () => performance.now() / 1000) {
    this.#total = total;
    this.#bytes = bytes;
    this.#now = now;
    this.#startedAt = now();
    this.#at = this.#startedAt;
  }

  update(bytes: number): Progress {
    const at = this.#now();
    const seconds = at - this.#at;
    if (seconds > 0) {
      const sample = (bytes - this.#bytes) / seconds;
      this.#average += (1 - Math.exp(-seconds / SMOOTHING_SECONDS)) * (sample - this.#average);
      this.#at = at;
      this.#bytes = bytes;
    }
    const weight = 1 - Math.exp(-(this.#at - this.#startedAt) / SMOOTHING_SECONDS);
    const rate = weight > 0 ? Math.max(0, this.#average / weight) : 0;
    return {
      bytes,
      total: this.#total,
      rate,
      etaSeconds: rate > 0 ? (this.#total - bytes) / rate : undefined,
    };
  }
}
