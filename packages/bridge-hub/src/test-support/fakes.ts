import type { BridgeEnvelope } from "@svc/protocol";
import type { BridgeHub } from "../hub.js";
import type {
  EndReason,
  EnvelopeSink,
  EnvelopeSource,
  PresenceChange,
  PresenceSink,
} from "../types.js";

/** An inbox in memory: receivedAt strictly increasing per address, like the real one. */
export class MemorySource implements EnvelopeSource {
  readonly #byAddress = new Map<string, BridgeEnvelope[]>();
  queries = 0;
  /** Delay of every query, to widen the backlog-to-live hand-over window in tests. */
  delayMs = 0;
  failNext: Error | undefined;

  /**
   * Stores the next envelope of `address` (receivedAt 1001, 1002, ...) and, given the hub of the
   * instance it is committed on, tells it. Without a hub it was committed on another instance.
   * `notified`: the depositing transaction sent the adapter's deposit notice.
   */
  deposit(address: string, hub?: BridgeHub, notified = false): BridgeEnvelope {
    const list = this.#byAddress.get(address) ?? [];
    this.#byAddress.set(address, list);
    // Like an inbox registration's starting value: nothing lies between 0 and the first one.
    const previousReceivedAt = list.at(-1)?.receivedAt ?? 0;
    const receivedAt = (list.at(-1)?.receivedAt ?? 1000) + 1;
    const envelope = { from: "sender:1", bytes: "AgE=", receivedAt, msgId: null };
    list.push(envelope);
    hub?.depositCommitted({
      address,
      receivedAt,
      previousReceivedAt,
      notified,
      envelope: () => envelope,
    });
    return envelope;
  }

  async envelopesSince(address: string, since: number, limit: number): Promise<BridgeEnvelope[]> {
    this.queries++;
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (this.failNext) {
      const error = this.failNext;
      this.failNext = undefined;
      throw error;
    }
    const list = this.#byAddress.get(address) ?? [];
    return list.filter((envelope) => envelope.receivedAt > since).slice(0, limit);
  }
}

export class RecordingSink implements EnvelopeSink {
  readonly received: BridgeEnvelope[] = [];
  ended: EndReason | undefined;
  unsent = 0;

  send(envelope: BridgeEnvelope): void {
    this.received.push(envelope);
  }
  unsentBytes(): number {
    return this.unsent;
  }
  end(reason: EndReason): void {
    this.ended = reason;
  }
}

export class RecordingPresenceSink implements PresenceSink {
  readonly snapshots: PresenceChange[] = [];
  readonly changes: PresenceChange[] = [];
  ended: EndReason | undefined;
  unsent = 0;

  snapshot(state: PresenceChange): void {
    this.snapshots.push(state);
  }
  change(change: PresenceChange): void {
    this.changes.push(change);
  }
  unsentBytes(): number {
    return this.unsent;
  }
  end(reason: EndReason): void {
    this.ended = reason;
  }
}
