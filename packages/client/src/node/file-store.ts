import { AsyncLocalStorage } from "node:async_hooks";
import { mkdir, readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import {
  acquirePidLock,
  readTextIfPresent,
  releasePidLockSync,
  TEMP_SUFFIX,
  writeFileAtomic,
} from "@svc/node-kit";
import { ClientError } from "../errors.js";
import type { StoredState } from "../state.js";
import type { KeyStore } from "../store.js";

export interface FileStoreOptions {
  /** How long to wait for another user of the store to let go of its lock; default 10 s. */
  lockTimeoutMs?: number;
}

const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

const STATE_FILE = "state.json";
const LOCK_FILE = "state.lock";

/**
 * A KeyStore in `<dir>/state.json` (mode 0600, `dir` created 0700 by the first save). A save
 * writes a temporary file, fsyncs it, renames it over state.json and fsyncs the directory, so a
 * crash leaves the old state or the new one. Each load, save and transaction holds
 * `<dir>/state.lock` (a pid lock of @svc/node-kit) while it runs, and only then: processes sharing the
 * directory (`svc listen` and `svc send`) take turns, a transaction's loads and saves inside it.
 */
export function fileStore(dir: string, options: FileStoreOptions = {}): KeyStore {
  if (typeof dir !== "string" || dir.length === 0) throw new TypeError("dir must be a path");
  const lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  if (!Number.isSafeInteger(lockTimeoutMs) || lockTimeoutMs < 0) {
    throw new RangeError("options.lockTimeoutMs must be a non-negative integer");
  }
  const statePath = join(dir, STATE_FILE);
  const lockPath = join(dir, LOCK_FILE);
  // The task holding the lock now, and each task's own token: its loads and saves do not take
  // the lock again. Work a task starts and leaves running (a promise chained inside it) keeps the
  // task's token after the lock is let go, so a token only counts while it is the holder's.
  const holding = new AsyncLocalStorage<object>();
  let holder: object | undefined;
  let cleaned = false;

  const holdsLock = () => holder !== undefined && holding.getStore() === holder;
  const releaseOnExit = () => releasePidLockSync(lockPath);

  async function locked<T>(task: () => Promise<T>): Promise<T> {
    if (holdsLock()) return task();
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const release = await acquirePidLock(lockPath, {
      waitMs: lockTimeoutMs,
      whenHeld: (pid) =>
        new ClientError(
          "STORE_LOCKED",
          `${lockPath} is held by process ${pid} for longer than ${lockTimeoutMs} ms`,
        ),
    });
    process.once("exit", releaseOnExit);
    try {
      if (!cleaned) {
        await removeTempFiles(dir);
        cleaned = true;
      }
      holder = {};
      return await holding.run(holder, task);
    } finally {
      holder = undefined;
      process.removeListener("exit", releaseOnExit);
      await release();
    }
  }

  async function read(): Promise<StoredState | undefined> {
    const text = await readTextIfPresent(statePath);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as StoredState;
    } catch (error) {
      throw new ClientError("BAD_STATE", `${statePath} is not JSON`, { cause: error });
    }
  }

  return {
    async load() {
      // Reading a home that does not exist creates nothing: there is no state to guard.
      if (!holdsLock() && !(await exists(dir))) return undefined;
      return locked(read);
    },
    save: (state) => locked(() => writeFileAtomic(statePath, JSON.stringify(state))),
    transaction: locked,
  };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return false;
      throw error;
    },
  );
}

/** Temporary files a crash left behind mid-save: never the state, only a write that did not finish. */
async function removeTempFiles(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    if (name.startsWith(`${STATE_FILE}.`) && name.endsWith(TEMP_SUFFIX)) {
      await unlink(join(dir, name)).catch(() => undefined);
    }
  }
}
