import { mkdir, open, readdir, readFile, rename, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { ClientError } from "../errors.js";
import type { StoredState } from "../state.js";
import type { KeyStore } from "../store.js";
import { acquireLock, releaseLockSync } from "./lock.js";

export interface FileStoreOptions {
  /** How long to wait for another writer to let go of the store; default 0 (refuse at once). */
  lockTimeoutMs?: number;
}

const STATE_FILE = "state.json";
const LOCK_FILE = "state.lock";
const TEMP_SUFFIX = ".tmp";

/**
 * A KeyStore in `<dir>/state.json` (mode 0600, `dir` created 0700). A save writes a temporary
 * file, fsyncs it, renames it over state.json and fsyncs the directory, so a crash leaves the old
 * state or the new one. The first load or save takes `<dir>/state.lock` (O_EXCL, the pid inside)
 * and keeps it until close() or the process exits: one writer at a time across processes. A load
 * from a `dir` that does not exist finds no state and creates nothing (read-only commands leave
 * no empty home behind); the first save creates it.
 */
export function fileStore(dir: string, options: FileStoreOptions = {}): KeyStore {
  if (typeof dir !== "string" || dir.length === 0) throw new TypeError("dir must be a path");
  const lockTimeoutMs = options.lockTimeoutMs ?? 0;
  if (!Number.isSafeInteger(lockTimeoutMs) || lockTimeoutMs < 0) {
    throw new RangeError("options.lockTimeoutMs must be a non-negative integer");
  }
  const statePath = join(dir, STATE_FILE);
  let locked: Promise<() => Promise<void>> | undefined;
  let saves = 0;

  function lock(): Promise<() => Promise<void>> {
    locked ??= (async () => {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const release = await acquireLock(join(dir, LOCK_FILE), lockTimeoutMs);
      process.once("exit", releaseOnExit);
      await removeTempFiles(dir);
      return release;
    })();
    locked.catch(() => {
      locked = undefined;
    });
    return locked;
  }

  function releaseOnExit(): void {
    releaseLockSync(join(dir, LOCK_FILE));
  }

  return {
    async load() {
      if (locked === undefined && !(await exists(dir))) return undefined;
      await lock();
      let text: string;
      try {
        text = await readFile(statePath, "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
      try {
        return JSON.parse(text) as StoredState;
      } catch (error) {
        throw new ClientError("BAD_STATE", `${statePath} is not JSON`, { cause: error });
      }
    },
    async save(state) {
      await lock();
      const temp = join(dir, `${STATE_FILE}.${process.pid}.${saves++}${TEMP_SUFFIX}`);
      const handle = await open(temp, "wx", 0o600);
      try {
        await handle.writeFile(JSON.stringify(state));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, statePath);
      await syncDirectory(dir);
    },
    async close() {
      if (locked === undefined) return;
      const release = await locked.catch(() => undefined);
      locked = undefined;
      process.removeListener("exit", releaseOnExit);
      await release?.();
    },
  };
}

async function exists(dir: string): Promise<boolean> {
  try {
    await stat(dir);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** Temporary files a crash left behind mid-save: never the state, only a write that did not finish. */
async function removeTempFiles(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    if (name.startsWith(`${STATE_FILE}.`) && name.endsWith(TEMP_SUFFIX)) {
      await unlink(join(dir, name)).catch(() => undefined);
    }
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } catch (error) {
    // Some platforms cannot fsync a directory; the rename is still atomic there.
    if (!["EINVAL", "EISDIR", "EPERM"].includes((error as NodeJS.ErrnoException).code ?? "")) {
      throw error;
    }
  } finally {
    await handle.close();
  }
}
