import { readFileSync, unlinkSync } from "node:fs";
import { link, open, readFile, rename, stat, unlink } from "node:fs/promises";
import { ClientError } from "../errors.js";

/** A lock file whose content is not a pid is stale once it is this old (a crash mid-create). */
const UNREADABLE_STALE_MS = 5000;
const RETRY_MS = 10;

/**
 * An exclusive lock file holding the owner's pid, created with O_EXCL. A lock whose pid is no
 * longer a running process is stale and taken over; a live owner (this process included) makes
 * the caller wait up to `timeoutMs`, then ClientError STORE_LOCKED.
 */
export async function acquireLock(path: string, timeoutMs: number): Promise<() => Promise<void>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await tryCreate(path)) return () => releaseLock(path);
    const owner = await ownerOf(path);
    if (owner.stale) {
      await removeStale(path, owner.text);
      continue;
    }
    if (Date.now() >= deadline) {
      throw new ClientError(
        "STORE_LOCKED",
        `${path} is held by process ${owner.text || "(unknown)"} for longer than ${timeoutMs} ms`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

async function tryCreate(path: string): Promise<boolean> {
  try {
    const handle = await open(path, "wx", 0o600);
    try {
      await handle.writeFile(`${process.pid}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if (codeOf(error) === "EEXIST") return false;
    throw error;
  }
}

async function ownerOf(path: string): Promise<{ text: string; stale: boolean }> {
  let text: string;
  try {
    text = (await readFile(path, "utf8")).trim();
  } catch (error) {
    if (codeOf(error) === "ENOENT") return { text: "", stale: false };
    throw error;
  }
  if (!/^\d+$/.test(text)) {
    const age = await stat(path).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    return { text, stale: age > UNREADABLE_STALE_MS };
  }
  return { text, stale: !isRunning(Number(text)) };
}

/**
 * Moves the stale lock aside before deleting it, so that a lock another process created in the
 * meantime (after it too found this one stale) is put back rather than deleted.
 */
async function removeStale(path: string, staleText: string): Promise<void> {
  const aside = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.stale`;
  try {
    await rename(path, aside);
  } catch (error) {
    if (codeOf(error) === "ENOENT") return;
    throw error;
  }
  const moved = (await readFile(aside, "utf8").catch(() => "")).trim();
  if (moved !== staleText) await link(aside, path).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}

async function releaseLock(path: string): Promise<void> {
  const text = await readFile(path, "utf8").catch(() => "");
  if (text.trim() === String(process.pid)) await unlink(path).catch(() => undefined);
}

/** For process exit, where nothing asynchronous runs; a lock left behind is stale by its pid anyway. */
export function releaseLockSync(path: string): void {
  try {
    if (readFileSync(path, "utf8").trim() === String(process.pid)) unlinkSync(path);
  } catch {
    // Gone already, or unreadable: nothing of ours to remove.
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) === "EPERM";
  }
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
