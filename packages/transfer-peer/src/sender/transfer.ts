import { EventEmitter } from "node:events";
import { resolveSendOptions, type SendOptions } from "./options.js";
import type { SendSource } from "./source.js";
import { StreamSender, type TransferEvents, type TransferResult } from "./stream-sender.js";

/**
 * A send under way. `streamId` and `key` are known from the start; `started` says when the
 * receiver knows them too, which is when a caller saves them to resume later.
 */
export class Transfer extends EventEmitter<TransferEvents> {
  readonly streamId: string;
  readonly key: Uint8Array;
  /** Resolves when the receiver has accepted `finish`; rejects with why the send stopped. */
  readonly done: Promise<TransferResult>;
  readonly #sender: StreamSender;

  constructor(source: SendSource, options: SendOptions) {
    super();
    this.#sender = new StreamSender(source, resolveSendOptions(options), this);
    this.streamId = this.#sender.streamId;
    this.key = this.#sender.key;
    this.done = this.#sender.done;
  }

  /** Lets the chunks in flight finish, sends no more, and tells the receiver (`pause`). */
  pause(): Promise<void> {
    return this.#sender.pause();
  }

  /** Tells the receiver (`resume`) and sends again. */
  resume(): Promise<void> {
    return this.#sender.resume();
  }

  /**
   * Cancels the chunks in flight and tells the receiver to drop the stream (`abort`); `done`
   * rejects with TransferError ABORTED. Such a stream cannot be resumed: to stop a send that
   * can be, abort the `signal` option instead.
   */
  abort(reason?: string): Promise<void> {
    return this.#sender.abort(reason);
  }
}

/**
 * Sends a file (or a stream, spooled to a temporary file first) to a transfer receiver: hashes
 * it, starts the stream (or resumes `options.resume`), sends the chunks on parallel lanes and
 * finishes. Option mistakes throw at once; everything else rejects `done`.
 */
export function sendFile(source: SendSource, options: SendOptions): Transfer {
  return new Transfer(source, options);
}
