import { createHash } from "node:crypto";
import { mkdir, readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { readTextIfPresent, TEMP_SUFFIX, writeFileAtomic } from "@svc/node-kit";
import { decodeBase64, encodeBase64 } from "@svc/signed-note";
import { WitnessError } from "./errors.js";
import type { CosignedTree, WitnessState } from "./state.js";
import { lockStateDir } from "./state-lock.js";

/**
 * A WitnessState on disk: one file per origin, `<dir>/<hex SHA-256(origin)>.json` holding
 * `{"origin", "size", "rootHash"}` (base64). Each write goes to a 0600 temporary file, is synced,
 * renamed into place and the directory synced, so a state that `write` returned survives a crash
 * or kill -9, and a file is never seen half-written. The directory is locked (`.lock`) for one
 * process: open it in one witness process only.
 */
export class FileWitnessState implements WitnessState {
  readonly dir: string;
  readonly #release: () => Promise<void>;
  #closed = false;

  private constructor(dir: string, release: () => Promise<void>) {
    this.dir = dir;
    this.#release = release;
  }

  /** Creates the directory (0700) if needed and takes its lock; see {@link lockStateDir}. */
  static async open(dir: string): Promise<FileWitnessState> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const release = await lockStateDir(dir);
    // Drafts left by a process killed in the middle of a write: never renamed, never read.
    for (const name of await readdir(dir)) {
      if (name.endsWith(TEMP_SUFFIX)) await unlink(join(dir, name));
    }
    return new FileWitnessState(dir, release);
  }

  async read(origin: string): Promise<CosignedTree | undefined> {
    this.#checkOpen();
    const path = this.#path(origin);
    const text = await readTextIfPresent(path);
    return text === undefined ? undefined : parseStateFile(path, origin, text);
  }

  async write(origin: string, tree: CosignedTree): Promise<void> {
    this.#checkOpen();
    if (!Number.isSafeInteger(tree.size) || tree.size < 0) {
      throw new RangeError(`tree.size must be a non-negative safe integer, got ${tree.size}`);
    }
    if (!(tree.rootHash instanceof Uint8Array) || tree.rootHash.length !== 32) {
      throw new RangeError("tree.rootHash must be 32 bytes");
    }
    const text = `${JSON.stringify({ origin, size: tree.size, rootHash: encodeBase64(tree.rootHash) })}\n`;
    await writeFileAtomic(this.#path(origin), text);
  }

  /** Releases the lock; the state can no longer be read or written. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#release();
  }

  #path(origin: string): string {
    return join(this.dir, `${createHash("sha256").update(origin, "utf8").digest("hex")}.json`);
  }

  #checkOpen(): void {
    if (this.#closed) throw new Error("the witness state is closed");
  }
}

function parseStateFile(path: string, origin: string, text: string): CosignedTree {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corrupt(path, "not JSON");
  }
  const record = (value ?? {}) as Record<string, unknown>;
  if (record.origin !== origin) throw corrupt(path, "it is another origin's");
  const { size, rootHash } = record;
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) {
    throw corrupt(path, "size is not a non-negative safe integer");
  }
  const hash = typeof rootHash === "string" ? decodeBase64(rootHash) : undefined;
  if (hash === undefined || hash.length !== 32) throw corrupt(path, "rootHash is not 32 bytes");
  return { size, rootHash: hash };
}

function corrupt(path: string, why: string): WitnessError {
  return new WitnessError("WITNESS_STATE_CORRUPT", `${path}: ${why}`);
}
