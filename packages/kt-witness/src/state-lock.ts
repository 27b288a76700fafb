import { randomBytes } from "node:crypto";
import { link, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { WitnessError } from "./errors.js";

/** The lock file of a state directory: the holder's pid and a newline. */
export const LOCK_FILE = ".lock";

/** Lock files this process holds, by path: a lock naming our own pid may be a dead namesake's. */
const held = new Set<string>();

/**
 * Takes `<dir>/.lock` for this process, so that one state directory serves one witness process
 * (the per-origin queue that keeps the state from going back lives in that process). A lock
 * whose process is gone (killed with -9) is taken over; one held by a live process throws
 * WitnessError WITNESS_STATE_LOCKED. Resolves to the function that releases it.
 */
export async function lockStateDir(dir: string): Promise<() => Promise<void>> {
  const path = resolve(join(dir, LOCK_FILE));
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await create(path)) {
      held.add(path);
      return async () => {
        held.delete(path);
        if ((await holder(path)) === process.pid) await unlink(path);
      };
    }
    const pid = await holder(path);
    if (pid === "absent") continue;
    if (pid !== "unreadable" && isAlive(pid, path)) throw locked(path, `process ${pid}`);
    await removeStale(path, pid);
  }
  throw locked(path, "another process");
}

/** Creates the lock whole (written aside, then linked into place): never a half-written lock. */
async function create(path: string): Promise<boolean> {
  const draft = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
  await writeFile(draft, `${process.pid}\n`, { flag: "wx", mode: 0o600 });
  try {
    await link(draft, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return false;
  } finally {
    await unlink(draft);
  }
}

async function holder(path: string): Promise<number | "absent" | "unreadable"> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "absent";
    throw error;
  }
  return /^[1-9][0-9]{0,9}\n$/.test(text) ? Number(text.slice(0, -1)) : "unreadable";
}

function isAlive(pid: number, path: string): boolean {
  if (pid === process.pid) return held.has(path);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Moves the stale lock aside and checks that what moved is still the dead holder's: two
 * processes taking over the same stale lock at once would otherwise both remove it, the second
 * removing the first's new lock. If another process's new lock moved, it is put back.
 */
async function removeStale(path: string, stale: number | "unreadable"): Promise<void> {
  const aside = `${path}.stale.${process.pid}.${randomBytes(4).toString("hex")}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  const moved = await holder(aside);
  if (moved !== stale) {
    await link(aside, path).catch(() => undefined);
    await unlink(aside);
    throw locked(path, "another process starting at the same moment");
  }
  await unlink(aside);
}

function locked(path: string, by: string): WitnessError {
  return new WitnessError(
    "WITNESS_STATE_LOCKED",
    `${path} is held by ${by}: one state directory serves one witness (remove the file if no witness runs on it)`,
  );
}
