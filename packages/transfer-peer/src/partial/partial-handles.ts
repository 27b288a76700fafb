import { type FileHandle, open } from "node:fs/promises";
import { GroupSync } from "../fs/group-sync.js";

/** How long a partial file stays open after its last write: lanes write again within ms. */
export const IDLE_CLOSE_MS = 5_000;

/**
 * The most one write call hands the kernel. Measured here (Linux 6.18, ext4), copying into the
 * page cache cost 2.4-2.7 s of kernel CPU per GiB in 4 MiB writes and 0.3 s in 256 KiB ones
 * (0.4 s at 128 KiB, 0.7 s at 512 KiB, 1.8 s at 1 MiB): the receiver wrote whole chunks, and
 * that copy was a quarter of the machine's CPU during a transfer.
 */
export const WRITE_SLICE_BYTES = 256 * 1024;

interface OpenPartial {
  handle: Promise<FileHandle>;
  syncs: GroupSync;
  /** Writes under way, their sync included: the handle is closed only once there are none. */
  users: number;
  closing: boolean;
  idle?: NodeJS.Timeout;
}

/**
 * One open handle per partial file, shared by the stream's lanes, with their fdatasyncs grouped
 * (GroupSync): an open and a close per chunk cost the receiver as much CPU as its cipher. Opened
 * on the first write, closed when forgotten (finish, abort), after IDLE_CLOSE_MS without a
 * write, or on close().
 */
export class PartialHandles {
  readonly #open = new Map<string, OpenPartial>();
  readonly #idleMs: number;

  constructor(idleMs = IDLE_CLOSE_MS) {
    this.#idleMs = idleMs;
  }

  /**
   * Writes `data` at `offset` of `path`, at most WRITE_SLICE_BYTES per call, and resolves once
   * an fdatasync that began after the write completed has completed. ENOENT when the file is
   * gone.
   */
  async writeDurably(path: string, offset: number, data: Uint8Array): Promise<void> {
    const partial = this.#acquire(path);
    try {
      const handle = await partial.handle;
      for (let written = 0; written < data.length; ) {
        const { bytesWritten } = await handle.write(
          data,
          written,
          Math.min(WRITE_SLICE_BYTES, data.length - written),
          offset + written,
        );
        written += bytesWritten;
      }
      await partial.syncs.sync();
    } finally {
      this.#release(path, partial);
    }
  }

  /** Closes the file's handle once the writes under way end; the next write opens it again. */
  forget(path: string): void {
    const partial = this.#open.get(path);
    if (partial === undefined) return;
    this.#open.delete(path);
    partial.closing = true;
    if (partial.users === 0) closeHandle(partial);
  }

  /** Forgets every file. */
  close(): void {
    for (const path of [...this.#open.keys()]) this.forget(path);
  }

  /** Files with an open handle (or one being opened). */
  get size(): number {
    return this.#open.size;
  }

  #forgetIf(path: string, partial: OpenPartial): void {
    if (this.#open.get(path) === partial) this.forget(path);
  }

  #acquire(path: string): OpenPartial {
    let partial = this.#open.get(path);
    if (partial === undefined) {
      const handle = open(path, "r+");
      const opened: OpenPartial = {
        handle,
        syncs: new GroupSync(async () => (await handle).datasync()),
        users: 0,
        closing: false,
      };
      // A failed open (the file is gone) is not kept: the next write tries again.
      handle.catch(() => this.#forgetIf(path, opened));
      this.#open.set(path, opened);
      partial = opened;
    }
    clearTimeout(partial.idle);
    partial.users++;
    return partial;
  }

  #release(path: string, partial: OpenPartial): void {
    partial.users--;
    if (partial.users > 0) return;
    if (partial.closing) {
      closeHandle(partial);
      return;
    }
    partial.idle = setTimeout(() => this.#forgetIf(path, partial), this.#idleMs);
    partial.idle.unref();
  }
}

function closeHandle(partial: OpenPartial): void {
  clearTimeout(partial.idle);
  partial.handle.then((handle) => handle.close()).catch(() => undefined);
}
