import { randomBytes } from "node:crypto";
import { open, readFile, rename, unlink } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Replaces `path` with `text` so that a crash leaves the old content or the new, never a mix: a
 * private temporary file (mode 0600), fsynced, renamed over `path`, then the directory fsynced.
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const temp = `${path}.${randomBytes(6).toString("hex")}${TEMP_SUFFIX}`;
  const handle = await open(temp, "wx", 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  await rename(temp, path);
  await syncDirectory(dirname(path));
}

/** The suffix of writeFileAtomic's temporary files, which a crash may leave behind. */
export const TEMP_SUFFIX = ".tmp";

/** Makes the directory's entries (a rename, a new link) durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } catch (error) {
    // Some platforms cannot fsync a directory; renames and links are still atomic there.
    if (!["EINVAL", "EISDIR", "EPERM"].includes((error as NodeJS.ErrnoException).code ?? "")) {
      throw error;
    }
  } finally {
    await handle.close();
  }
}

export function isErrno(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === code;
}

/** The UTF-8 text of `path`, or undefined when there is no such file. */
export async function readTextIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (isErrno(error, "ENOENT")) return undefined;
    throw error;
  }
}
