import { Duplex } from "node:stream";
import type { PgliteThread } from "./pglite-channel.js";

const NOTIFICATION_RESPONSE = 0x41; // 'A'
const decoder = new TextDecoder();

/**
 * A stream that speaks the PostgreSQL protocol to the embedded database, for postgres.js's
 * `socket` option: the embedded database is then reached through the same driver as a real
 * server. The embedded database has one session, so the client must keep to one connection.
 *
 * NOTIFY reaches the session that listens in the answer to whatever statement ran after the
 * notifying commit; `onNotification` hears each one.
 */
export function pgliteSocket(
  thread: PgliteThread,
  onNotification: (channel: string, payload: string) => void,
): Duplex {
  return new PgliteSocket(thread, onNotification);
}

class PgliteSocket extends Duplex {
  readonly #thread: PgliteThread;
  readonly #onNotification: (channel: string, payload: string) => void;

  constructor(thread: PgliteThread, onNotification: (channel: string, payload: string) => void) {
    super();
    this.#thread = thread;
    this.#onNotification = onNotification;
  }

  /** postgres.js sends its Terminate message, and waits for "close", only to an open socket. */
  get readyState(): "open" | "closed" {
    return this.writable ? "open" : "closed";
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error) => void) {
    this.#send(chunk, callback);
  }

  /** The writes that waited while one ran go to the thread together, in one exchange. */
  override _writev(writes: Array<{ chunk: Buffer }>, callback: (error?: Error) => void): void {
    this.#send(Buffer.concat(writes.map((write) => write.chunk)), callback);
  }

  override _final(callback: () => void): void {
    this.push(null);
    callback();
    process.nextTick(() => this.destroy());
  }

  /**
   * Writes wait in the stream's buffer while one runs. A failed write destroys the socket with
   * the thread's reason: postgres.js fails the queries it sent, and each reconnection fails alike.
   */
  #send(request: Uint8Array, callback: (error?: Error) => void): void {
    this.#thread.execute(request).then((answer) => {
      // The next buffered write goes to the thread first, to run while postgres.js reads this.
      callback();
      if (answer.length > 0) {
        this.push(answer);
        forEachNotification(answer, this.#onNotification);
      }
    }, callback);
  }
}

/** Backend messages are a type byte, an int32 length (counting itself) and the body. */
function forEachNotification(
  answer: Uint8Array,
  onNotification: (channel: string, payload: string) => void,
): void {
  const view = new DataView(answer.buffer, answer.byteOffset, answer.byteLength);
  for (let at = 0; at + 5 <= answer.length; at += 1 + view.getInt32(at + 1)) {
    if (answer[at] !== NOTIFICATION_RESPONSE) continue;
    // Body: sender pid (int32), channel and payload as NUL-terminated strings.
    const channelStart = at + 9;
    const channelEnd = answer.indexOf(0, channelStart);
    const payloadEnd = answer.indexOf(0, channelEnd + 1);
    onNotification(
      decoder.decode(answer.subarray(channelStart, channelEnd)),
      decoder.decode(answer.subarray(channelEnd + 1, payloadEnd)),
    );
  }
}
