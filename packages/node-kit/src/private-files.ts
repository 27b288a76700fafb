import { chmod, lstat, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";

/** Group and other permission bits: what a private file or directory has none of. */
const SHARED_BITS = 0o077;

/**
 * Makes `path` (and any missing parent) a directory only its owner may use: made 0700, or its
 * group and other bits taken away when it exists, as initdb does to a data directory.
 */
export async function makePrivateDirectory(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
  await restrict(path);
}

/**
 * Takes the group and other bits away from every directory and file under `root`, itself
 * included (0755 becomes 0700, 0666 becomes 0600), whatever made them: PGlite's initdb sets its
 * files to 0666 itself, and PostgreSQL opens some later files (pg_internal.init, statistics)
 * with 0666, which only the process's umask narrows. Symbolic links are left alone.
 */
export async function restrictTree(root: string): Promise<void> {
  const mode = await restrict(root);
  if (mode === undefined || (mode & 0o170000) !== 0o040000) return;
  for (const name of await readdir(root)) await restrictTree(join(root, name));
}

/** The entry's mode before, once its shared bits are gone; undefined when it vanished. */
async function restrict(path: string): Promise<number | undefined> {
  let mode: number;
  try {
    ({ mode } = await lstat(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const isLink = (mode & 0o170000) === 0o120000;
  if (!isLink && (mode & SHARED_BITS) !== 0) await chmod(path, mode & 0o700);
  return mode;
}
