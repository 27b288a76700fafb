import type { EndReason, EnvelopeSink, EnvelopeSource } from "./types.js";

/** Envelopes per query, and the most a poll returns. */
export const BATCH_LIMIT = 100;
/** A consumer with more unsent bytes than this when the next envelope is due is cut off (D7). */
export const MAX_UNSENT_BYTES = 1024 * 1024;

/**
 * Delivery of one bridge: replays the backlog after its cursor, then follows wake-ups. Every
 * wake-up re-queries `envelopesSince(lastDelivered)`, so a notification never carries data and
 * the hand-over from backlog to live delivery can neither skip nor repeat an envelope.
 */
export class PushBridge {
  #lastDelivered: number;
  #pumping = false;
  #dirty = false;
  #closed = false;

  constructor(
    readonly address: string,
    since: number,
    private readonly source: EnvelopeSource,
    private readonly sink: EnvelopeSink,
    private readonly onEnd: (bridge: PushBridge, reason: EndReason, error?: unknown) => void,
  ) {
    this.#lastDelivered = since;
  }

  get lastDelivered(): number {
    return this.#lastDelivered;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Something may have arrived: query again (coalesced while a query is running). */
  wake(): void {
    if (this.#closed) return;
    if (this.#pumping) {
      this.#dirty = true;
      return;
    }
    void this.#pump();
  }

  /** Forgets the bridge without touching the connection (the connection closed). */
  detach(): void {
    this.#closed = true;
  }

  /** Forgets the bridge and ends its connection. */
  end(reason: EndReason, error?: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onEnd(this, reason, error);
    this.sink.end(reason);
  }

  async #pump(): Promise<void> {
    this.#pumping = true;
    try {
      do {
        this.#dirty = false;
        let full: boolean;
        do {
          const batch = await this.source.envelopesSince(
            this.address,
            this.#lastDelivered,
            BATCH_LIMIT,
          );
          full = batch.length === BATCH_LIMIT;
          for (const envelope of batch) {
            if (this.#closed) return;
            if (envelope.receivedAt <= this.#lastDelivered) continue;
            if (this.sink.unsentBytes() > MAX_UNSENT_BYTES) return this.end("behind");
            this.sink.send(envelope);
            this.#lastDelivered = envelope.receivedAt;
          }
        } while (full && !this.#closed);
      } while (this.#dirty && !this.#closed);
    } catch (error) {
      this.end("error", error);
    } finally {
      this.#pumping = false;
    }
  }
}
