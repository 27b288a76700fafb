import { SvcError } from "@svc/protocol";

export interface BudgetLimits {
  streamsPerSender: number;
  bytesPerSender: number;
  bytes: number;
  /** How long a stream may sit without moving before it expires (for Retry-After). */
  idleTtlMs: number;
}

interface Held {
  sender: string;
  size: number;
  /** When the stream last moved, as far as this receiver knows. */
  movedAt: number;
}

/**
 * What the unfinished (active or paused) streams of this receiver hold: each reserves its whole
 * announced size from the start on, since its partial file may grow to it. A start takes its
 * reservation in one synchronous step, so that of two starts racing for the last bytes exactly
 * one wins; finishing, aborting and expiring give it back.
 */
export class StreamBudget {
  readonly #limits: BudgetLimits;
  readonly #held = new Map<string, Held>();
  #bytes = 0;

  constructor(limits: BudgetLimits) {
    this.#limits = limits;
  }

  /**
   * Takes `size` bytes for a new stream of `sender`, or throws: 429 SVC_TOO_MANY_STREAMS when the
   * sender holds streamsPerSender streams, 507 SVC_INSUFFICIENT_STORAGE when the bytes do not fit
   * what is left of the sender's or everyone's. Retry-After is when the first stream in the way
   * would expire if none of them moves (room comes sooner when one finishes or is aborted).
   */
  reserve(streamId: string, sender: string, size: number, at: number): void {
    const { streamsPerSender, bytesPerSender, bytes } = this.#limits;
    const own = [...this.#held.values()].filter((held) => held.sender === sender);
    if (own.length >= streamsPerSender) {
      throw new SvcError(
        "SVC_TOO_MANY_STREAMS",
        `${sender} has ${own.length} unfinished streams here, the most it may have`,
        { retryAfterSeconds: this.#secondsUntilExpiry(own, at) },
      );
    }
    const ownBytes = own.reduce((sum, held) => sum + held.size, 0);
    if (ownBytes + size > bytesPerSender) {
      throw new SvcError(
        "SVC_INSUFFICIENT_STORAGE",
        `${sender}'s unfinished streams hold ${ownBytes} of the ${bytesPerSender} bytes set aside for a sender; ${size} more do not fit`,
        { retryAfterSeconds: this.#secondsUntilExpiry(own, at) },
      );
    }
    if (this.#bytes + size > bytes) {
      throw new SvcError(
        "SVC_INSUFFICIENT_STORAGE",
        `unfinished streams hold ${this.#bytes} of the ${bytes} bytes this receiver sets aside; ${size} more do not fit`,
        { retryAfterSeconds: this.#secondsUntilExpiry([...this.#held.values()], at) },
      );
    }
    this.hold(streamId, sender, size, at);
  }

  /** Counts a stream that exists already (found at start), whatever the limits say. */
  hold(streamId: string, sender: string, size: number, movedAt: number): void {
    this.release(streamId);
    this.#held.set(streamId, { sender, size, movedAt });
    this.#bytes += size;
  }

  /** Gives the stream's bytes back (finished, aborted, expired, or its start failed). */
  release(streamId: string): void {
    const held = this.#held.get(streamId);
    if (held === undefined) return;
    this.#held.delete(streamId);
    this.#bytes -= held.size;
  }

  /** The stream moved at `at`: a chunk was accepted, or a control message applied. */
  moved(streamId: string, at: number): void {
    const held = this.#held.get(streamId);
    if (held !== undefined && at > held.movedAt) held.movedAt = at;
  }

  /** The streams that have not moved since `since`, as far as this receiver knows. */
  idleSince(since: number): string[] {
    return [...this.#held].filter(([, held]) => held.movedAt <= since).map(([id]) => id);
  }

  /** Bytes reserved by every unfinished stream. */
  get bytes(): number {
    return this.#bytes;
  }

  #secondsUntilExpiry(streams: readonly Held[], at: number): number {
    if (streams.length === 0) return 1;
    const first = Math.min(...streams.map((held) => held.movedAt));
    return Math.max(1, Math.ceil((first + this.#limits.idleTtlMs - at) / 1000));
  }
}
