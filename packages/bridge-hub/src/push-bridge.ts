import type { CommittedDeposit } from "@svc/inbox";
import type { BridgeEnvelope } from "@svc/protocol";
import type { EndReason, EnvelopeSink, EnvelopeSource } from "./types.js";

/** Envelopes per query, and the most a poll returns. */
export const BATCH_LIMIT = 100;
/** A consumer with more unsent bytes than this when the next envelope is due is cut off (D7). */
export const MAX_UNSENT_BYTES = 1024 * 1024;

/**
 * Delivery of one bridge: replays the backlog after its cursor, then follows wake-ups. Every
 * wake-up re-queries `envelopesSince(lastDelivered)`, so a notification never carries data and
 * the hand-over from backlog to live delivery can neither skip nor repeat an envelope. The one
 * shortcut is a deposit committed on this instance that is exactly the next envelope (see offer).
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

  /** What the connection holds that its client has not taken yet. */
  unsentBytes(): number {
    return this.sink.unsentBytes();
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

  /**
   * A deposit committed on this instance. When the cursor is its previousReceivedAt, no envelope
   * lies between the two, so it is sent as is, without a query; otherwise (the bridge is behind,
   * or it expired) this is a wake-up. Beside a query in flight this is safe too: the query's
   * results are contiguous from where it started, and those up to the cursor are skipped.
   */
  offer(deposit: CommittedDeposit): void {
    if (this.#closed || deposit.receivedAt <= this.#lastDelivered) return;
    const envelope =
      deposit.previousReceivedAt === this.#lastDelivered ? deposit.envelope() : undefined;
    if (!envelope) {
      this.wake();
      return;
    }
    try {
      this.#send(envelope);
    } catch (error) {
      this.end("error", error);
    }
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
            if (envelope.receivedAt > this.#lastDelivered) this.#send(envelope);
          }
        } while (full && !this.#closed);
      } while (this.#dirty && !this.#closed);
    } catch (error) {
      this.end("error", error);
    } finally {
      this.#pumping = false;
    }
  }

  /** Sends the next envelope, or cuts the consumer off when it has fallen behind (D7). */
  #send(envelope: BridgeEnvelope): void {
    if (this.sink.unsentBytes() > MAX_UNSENT_BYTES) {
      this.end("behind");
      return;
    }
    this.sink.send(envelope);
    this.#lastDelivered = envelope.receivedAt;
  }
}
