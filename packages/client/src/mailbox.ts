import { decodeBase64 } from "@svc/canonical";
import { type BridgeEnvelope, SvcError } from "@svc/protocol";
import type { SvcApi } from "./api.js";
import { ClientError } from "./errors.js";
import {
  type InboundContext,
  type InboundEnvelope,
  type InboundMessage,
  type Outcome,
  processEnvelope,
  type ReceivedMessage,
  storedMessage,
} from "./inbound.js";
import { RECENTLY_ACKED, type StoredState } from "./state.js";
import { isTransient } from "./transient.js";

/** What the mailbox needs from its client. */
export interface MailboxHost {
  api: SvcApi;
  /**
   * Runs one change of the state, one at a time: on the latest state (another process sharing
   * the store may have written it), saved before the next change starts.
   */
  change<T>(task: () => Promise<T>): Promise<T>;
  /** The state; throws NO_IDENTITY without one. */
  state(): StoredState;
  /** Saves the state as it is now (writes are queued in order). */
  persist(): Promise<void>;
  inbound(): InboundContext;
  /** Non-fatal problems: dropped envelopes, handler errors, failed acks, transient failures. */
  report(error: unknown): void;
  signingKey(): Uint8Array;
  /** A first message used up one-time prekeys: the server may be running low. */
  prekeysUsed(): void;
  /**
   * What a decrypted message is for the application (see Reading in device-frames.ts): handed
   * over, taken by this client (a device frame, acked without handing it over), or refused.
   */
  read(message: InboundMessage): Promise<Reading>;
}

export type Reading =
  | { kind: "deliver"; message: ReceivedMessage }
  | { kind: "taken" }
  | { kind: "refuse"; error: ClientError };

export type Deliver = (message: ReceivedMessage) => void | Promise<void>;

/**
 * The receiving half of a client, one envelope at a time: decrypt and save (sessions, one-time
 * prekeys, the plaintext among `unacked`), hand over, save that it was handed over, then ack.
 * See README.md, "Exactly once".
 */
export class Mailbox {
  readonly #host: MailboxHost;

  constructor(host: MailboxHost) {
    this.#host = host;
  }

  /** Decrypts (or recognizes) envelopes in order and saves once; transient failures are reported and skipped. */
  process(envelopes: InboundEnvelope[]): Promise<Outcome[]> {
    const host = this.#host;
    return host.change(async () => {
      const state = host.state();
      const oneTimePreKeys = Object.keys(state.oneTimePreKeys).length;
      const outcomes: Outcome[] = [];
      for (const envelope of envelopes) {
        try {
          outcomes.push(await processEnvelope(host.inbound(), state, envelope));
        } catch (error) {
          host.report(error);
        }
      }
      if (envelopes.length > 0) await host.persist();
      if (Object.keys(state.oneTimePreKeys).length < oneTimePreKeys) host.prekeysUsed();
      return outcomes;
    });
  }

  /**
   * Hands over each message, then acks it; drops are reported and acked. A message whose `deliver`
   * throws keeps its plaintext in the store and is handed over again on the next drain or redelivery.
   */
  async settle(outcomes: Outcome[], deliver: Deliver): Promise<void> {
    for (const outcome of outcomes) {
      if (outcome.kind === "deliver") {
        try {
          const reading = await this.#host.read(outcome.message);
          if (reading.kind === "deliver") await deliver(reading.message);
          if (reading.kind === "refuse") this.#host.report(reading.error);
        } catch (error) {
          this.#host.report(error);
          continue;
        }
        await this.markHandedOver([outcome.message.msgId]);
        await this.ack(outcome.message.msgId);
      } else {
        if (outcome.kind === "drop") this.#host.report(outcome.error);
        await this.ack(outcome.msgId);
      }
    }
  }

  /** Drops the plaintexts of messages handed over, so that they are never handed over again. */
  markHandedOver(msgIds: string[]): Promise<void> {
    const host = this.#host;
    return host.change(async () => {
      const state = host.state();
      for (const msgId of msgIds) {
        const entry = state.unacked[msgId];
        if (entry) entry.plaintext = null;
      }
      await host.persist();
    });
  }

  /**
   * Acks one envelope (a 404 means it was acked already), then saves that it was: if that save
   * is lost, the ack is only sent again. An ack that fails stays in the store and is sent again
   * with the next drain or connect; only a refusal is reported, not a server away (that is the
   * subscription's to say).
   */
  async ack(msgId: string): Promise<void> {
    const host = this.#host;
    try {
      await host.api.inboxAck(host.state().address, msgId, host.signingKey());
    } catch (error) {
      if (!(error instanceof SvcError && error.code === "SVC_BLOB_NOT_FOUND")) {
        if (!isTransient(error)) host.report(error);
        return;
      }
    }
    await host.change(async () => {
      const state = host.state();
      delete state.unacked[msgId];
      if (!state.recentlyAcked.includes(msgId)) {
        state.recentlyAcked.push(msgId);
        state.recentlyAcked.splice(0, state.recentlyAcked.length - RECENTLY_ACKED);
      }
      await host.persist();
    });
  }

  /** What the store holds from before: messages not handed over yet, and acks not sent yet. */
  unfinished(): Promise<Outcome[]> {
    return this.#host.change(async () => this.#unfinishedNow());
  }

  #unfinishedNow(): Outcome[] {
    const state = this.#host.state();
    return Object.entries(state.unacked)
      .sort(([, a], [, b]) => a.receivedAt - b.receivedAt)
      .map(
        ([msgId, entry]): Outcome =>
          entry.plaintext === null
            ? { kind: "ack", msgId }
            : {
                kind: "deliver",
                message: storedMessage(msgId, entry.from, entry.receivedAt, entry.plaintext),
              },
      );
  }

  /**
   * Settles what is unfinished, then every envelope queued in the inbox, oldest first. The pages
   * come from the poll bridge with timeoutMs=0 rather than from inbox fetch: a fetch item carries
   * no sender address, and the sender's address picks the session (and, for a first message, the
   * identity keys to check).
   */
  async drain(deliver: Deliver, signal?: AbortSignal): Promise<void> {
    const host = this.#host;
    await this.settle(await this.unfinished(), deliver);
    let since = 0;
    for (;;) {
      signal?.throwIfAborted();
      const { envelopes } = await host.api.bridgePoll(
        { address: host.state().address, since, timeoutMs: 0 },
        host.signingKey(),
        signal ? { signal } : {},
      );
      if (envelopes.length === 0) return;
      await this.settle(await this.process(envelopes.map(inboundOf)), deliver);
      since = Math.max(since, ...envelopes.map((e) => e.receivedAt));
    }
  }
}

/** A bridge envelope (SSE, WebSocket, poll) as the mailbox takes it. */
export function inboundOf(envelope: BridgeEnvelope): InboundEnvelope {
  let bytes: Uint8Array;
  try {
    bytes = decodeBase64(envelope.bytes);
  } catch (error) {
    throw new ClientError("BAD_RESPONSE", "a bridge envelope's bytes are not base64", {
      cause: error,
    });
  }
  return {
    bytes,
    from: envelope.from,
    receivedAt: envelope.receivedAt,
  };
}
