import { createHash } from "node:crypto";
import { type FileHandle, open } from "node:fs/promises";

/**
 * The SHA-256 of a stream's data, taken from its chunks as they pass instead of in one pass over
 * the file: the receiver's as chunks are accepted (durable, their range never written again), a
 * version 2 sender's as chunks are read. In file order: a chunk at the hashed end is hashed from
 * memory; one further on is noted, and read back from the file once the chunks before it are in.
 * Whatever was not taken by the end (all of it, after a restart) is read from the file then.
 */
export class InOrderHash {
  readonly #path: string;
  readonly #hash = createHash("sha256");
  #hashedTo = 0;
  /** Accepted chunks past the hashed end, by offset: their lengths. */
  readonly #ahead = new Map<number, number>();
  /** The read-backs under way: each step follows the last. */
  #queue: Promise<void> = Promise.resolve();
  #busy = false;
  #failure: unknown;
  /** The read-backs' buffer, made at the first. */
  #buffer: Buffer | undefined;

  constructor(path: string) {
    this.#path = path;
  }

  /**
   * Takes an accepted chunk: hashed now when it is next in file order and no read-back is under
   * way (so nothing holds its data afterwards), else noted, to be read back from the file.
   */
  accepted(offset: number, data: Uint8Array): void {
    if (this.#failure !== undefined) return;
    if (!this.#busy && offset === this.#hashedTo) {
      this.#hash.update(data);
      this.#hashedTo += data.length;
    } else {
      this.#ahead.set(offset, data.length);
    }
    if (!this.#busy && this.#ahead.has(this.#hashedTo)) this.#then(() => this.#catchUp());
  }

  /** The lower-hex SHA-256 of the file's first `size` bytes, every chunk accepted. */
  async digest(size: number): Promise<string> {
    await this.#queue;
    if (this.#failure !== undefined) throw this.#failure;
    await this.#readInto(this.#hashedTo, size - this.#hashedTo);
    this.#hashedTo = size;
    return this.#hash.digest("hex");
  }

  #then(step: () => Promise<void>): void {
    this.#busy = true;
    this.#queue = this.#queue.then(async () => {
      try {
        if (this.#failure === undefined) await step();
      } catch (error) {
        this.#failure = error;
      } finally {
        this.#busy = false;
      }
    });
  }

  /** Hashes the noted chunks that now follow the hashed end, read from the file. */
  async #catchUp(): Promise<void> {
    for (let length = this.#ahead.get(this.#hashedTo); length !== undefined; ) {
      this.#ahead.delete(this.#hashedTo);
      await this.#readInto(this.#hashedTo, length);
      this.#hashedTo += length;
      length = this.#ahead.get(this.#hashedTo);
    }
  }

  async #readInto(offset: number, length: number): Promise<void> {
    if (length <= 0) return;
    const file: FileHandle = await open(this.#path, "r");
    try {
      this.#buffer ??= Buffer.allocUnsafe(READ_BYTES);
      const buffer = this.#buffer;
      for (let done = 0; done < length; ) {
        const want = Math.min(buffer.length, length - done);
        const { bytesRead } = await file.read(buffer, 0, want, offset + done);
        if (bytesRead === 0) throw new Error(`${this.#path} ends before byte ${offset + length}`);
        this.#hash.update(buffer.subarray(0, bytesRead));
        done += bytesRead;
      }
    } finally {
      await file.close();
    }
  }
}

const READ_BYTES = 4 * 1024 * 1024;
