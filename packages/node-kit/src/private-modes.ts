import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

/**
 * For tests of files' modes: `<mode in octal> <path>` of each directory under `root` (itself
 * included) that is not 0700 and each file that is not 0600; symbolic links are left out. An
 * empty list means everything there is private to its owner.
 */
export async function notPrivateUnder(root: string): Promise<string[]> {
  const { mode } = await lstat(root);
  const type = mode & 0o170000;
  if (type === 0o120000) return [];
  const isDirectory = type === 0o040000;
  const expected = isDirectory ? 0o700 : 0o600;
  const found = (mode & 0o777) === expected ? [] : [`${(mode & 0o777).toString(8)} ${root}`];
  if (!isDirectory) return found;
  for (const name of await readdir(root)) found.push(...(await notPrivateUnder(join(root, name))));
  return found;
}
