import { constants, link, mkdir, open, readdir, stat, truncate, unlink } from "node:fs/promises";
import { join } from "node:path";
import { isErrno, syncDirectory } from "@svc/node-kit";
import { isStreamId } from "@svc/protocol/transfer";
import { InOrderHash } from "./in-order-hash.js";
import { PartialHandles } from "./partial-handles.js";
import { candidateName } from "./safe-name.js";

/** Where partial data waits, under the receiving directory. */
export const PARTIAL_DIR = ".partial";
const PART = ".part";

export interface PartialFile {
  streamId: string;
  /** Its last change, ms since the epoch. */
  modifiedAt: number;
}

/**
 * The data of streams on disk: `<dir>/.partial/<streamId>.part` while it arrives, written at
 * each chunk's offset, then linked into `<dir>` under its safe name once it is whole.
 */
export class ReceivedFiles {
  readonly dir: string;
  readonly #partialDir: string;
  readonly #handles = new PartialHandles();
  readonly #hashes = new Map<string, InOrderHash>();

  constructor(dir: string) {
    this.dir = dir;
    this.#partialDir = join(dir, PARTIAL_DIR);
  }

  /** Closes every open partial file (a receiver that stops). */
  close(): void {
    this.#handles.close();
  }

  partialPath(streamId: string): string {
    return join(this.#partialDir, `${streamId}${PART}`);
  }

  /** The partial files there are: one per unfinished stream, and any a crash left behind. */
  async partialFiles(): Promise<PartialFile[]> {
    let names: string[];
    try {
      names = await readdir(this.#partialDir);
    } catch (error) {
      if (isErrno(error, "ENOENT")) return [];
      throw error;
    }
    const files: PartialFile[] = [];
    for (const name of names) {
      const streamId = name.slice(0, -PART.length);
      if (!name.endsWith(PART) || !isStreamId(streamId)) continue;
      try {
        files.push({ streamId, modifiedAt: (await stat(join(this.#partialDir, name))).mtimeMs });
      } catch (error) {
        if (!isErrno(error, "ENOENT")) throw error;
      }
    }
    return files;
  }

  /**
   * Makes sure the stream's partial file exists, durably, without truncating one that does: it
   * is made before the stream is recorded, and must not clobber the data of a stream that was.
   */
  async prepare(streamId: string): Promise<void> {
    await mkdir(this.#partialDir, { recursive: true, mode: 0o700 });
    const handle = await open(
      this.partialPath(streamId),
      constants.O_WRONLY | constants.O_CREAT,
      0o600,
    );
    await handle.close();
    await syncDirectory(this.#partialDir);
  }

  /**
   * Writes `data` at `offset` and waits until it is on disk (fdatasync): only then may the chunk
   * be acknowledged. Lanes write one file at once, each at its own offsets, through one handle
   * whose fdatasyncs they share. ENOENT when the partial file is gone (the stream was aborted
   * meanwhile).
   */
  write(streamId: string, offset: number, data: Uint8Array): Promise<void> {
    return this.#handles.writeDurably(this.partialPath(streamId), offset, data);
  }

  /**
   * Takes the data of a chunk the stream has accepted into its SHA-256 (see InOrderHash); the
   * data must stay unchanged until then.
   */
  accepted(streamId: string, offset: number, data: Uint8Array): void {
    let hash = this.#hashes.get(streamId);
    if (hash === undefined) {
      hash = new InOrderHash(this.partialPath(streamId));
      this.#hashes.set(streamId, hash);
    }
    hash.accepted(offset, data);
  }

  /**
   * Cuts the partial file to `size` (one left from an earlier attempt may be longer), then
   * completes its lower-hex SHA-256 from the file, where the chunks taken in have not.
   */
  async trimAndHash(streamId: string, size: number): Promise<string> {
    const path = this.partialPath(streamId);
    const hash = this.#hashes.get(streamId) ?? new InOrderHash(path);
    // A hash gives one digest: a finish tried again reads the whole file.
    this.#hashes.delete(streamId);
    await truncate(path, size);
    return hash.digest(size);
  }

  /**
   * Links the partial file into the directory under `name`, or the first of `name (1).ext`, ...
   * that is free: link() never replaces a file, so nothing there is overwritten. The directory
   * is fsynced; the partial file stays until removed. Returns the path.
   */
  async save(streamId: string, name: string): Promise<string> {
    const partial = this.partialPath(streamId);
    for (let attempt = 0; ; attempt++) {
      const path = join(this.dir, candidateName(name, attempt));
      try {
        await link(partial, path);
      } catch (error) {
        if (isErrno(error, "EEXIST")) continue;
        throw error;
      }
      await syncDirectory(this.dir);
      return path;
    }
  }

  /** Removes the partial file, if any, and closes its handle once the writes under way end. */
  async remove(streamId: string): Promise<void> {
    this.#hashes.delete(streamId);
    this.#handles.forget(this.partialPath(streamId));
    await unlink(this.partialPath(streamId)).catch((error) => {
      if (!isErrno(error, "ENOENT")) throw error;
    });
  }
}
