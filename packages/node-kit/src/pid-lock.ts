import { randomBytes } from "node:crypto";
import { readFileSync, unlinkSync } from "node:fs";
import { link, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { resolve } from "node:path";

export interface PidLockOptions {
  /** How long a lock that a live process holds is waited for; default 0 (refused at once). */
  waitMs?: number;
  /** The error thrown when process `pid` holds the lock past `waitMs`. */
  whenHeld(pid: number): Error;
}

const RETRY_MS = 10;

/**
 * Per lock path, the last of this process's acquirers: each waits for the one before it to let go
 * before it touches the file, so a file naming this process's pid is never one of its own live
 * holders (that one would be ahead in the queue) but an earlier life's of the same pid.
 */
const queues = new Map<string, Promise<void>>();

/**
 * Takes the lock file `path` for this process: a file holding its pid and a newline, mode 0600,
 * written aside and linked into place (never seen half-written). A lock whose process is gone
 * (killed with -9), or that does not hold a pid, is taken over; one a live process holds (this
 * one included) is waited for up to `waitMs`, then refused with `whenHeld(pid)`. Resolves to the
 * function that releases it.
 */
export async function acquirePidLock(
  path: string,
  options: PidLockOptions,
): Promise<() => Promise<void>> {
  const key = resolve(path);
  const deadline = Date.now() + (options.waitMs ?? 0);
  const before = queues.get(key);
  let letGo = () => {};
  const turn = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  const mine = (before ?? Promise.resolve()).then(() => turn);
  queues.set(key, mine);
  const leave = () => {
    letGo();
    if (queues.get(key) === mine) queues.delete(key);
  };
  try {
    if (before && !(await settlesBy(before, deadline))) throw options.whenHeld(process.pid);
    await takeFile(key, deadline, options);
  } catch (error) {
    leave();
    throw error;
  }
  return async () => {
    try {
      await release(key);
    } finally {
      leave();
    }
  };
}

/** Takes the file once no other live process holds it, or throws `whenHeld` at `deadline`. */
async function takeFile(key: string, deadline: number, options: PidLockOptions): Promise<void> {
  for (;;) {
    if (await create(key)) return;
    const pid = await holder(key);
    if (pid === "absent") continue;
    if (pid === "unreadable" || !isAlive(pid)) {
      await removeStale(key, pid);
      continue;
    }
    if (Date.now() >= deadline) throw options.whenHeld(pid);
    await new Promise((wake) => setTimeout(wake, RETRY_MS));
  }
}

/** Whether `promise` settles before `deadline`. */
async function settlesBy(promise: Promise<void>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** For process exit, where nothing asynchronous runs; a lock left behind is stale by its pid anyway. */
export function releasePidLockSync(path: string): void {
  const key = resolve(path);
  try {
    if (readFileSync(key, "utf8") === `${process.pid}\n`) unlinkSync(key);
  } catch {
    // Gone already, or unreadable: nothing of ours to remove.
  }
}

async function release(path: string): Promise<void> {
  if ((await holder(path).catch(() => "absent")) !== process.pid) return;
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
}

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

function isAlive(pid: number): boolean {
  if (pid === process.pid) return false; // its own holders are ahead of it in the queue
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Moves the stale lock aside and checks that what moved is still the stale one: two processes
 * taking over the same stale lock at once would otherwise both remove it, the second removing the
 * first's new lock. A new lock that moved is put back (and waited for like any live holder).
 */
async function removeStale(path: string, stale: number | "unreadable"): Promise<void> {
  const aside = `${path}.stale.${process.pid}.${randomBytes(4).toString("hex")}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if ((await holder(aside)) !== stale) await link(aside, path).catch(() => undefined);
  await unlink(aside);
}
