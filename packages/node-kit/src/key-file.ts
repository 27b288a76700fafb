import { randomBytes } from "node:crypto";
import { link, mkdir, open, stat, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { decodeBase64, encodeBase64 } from "@svc/canonical";
import { readTextIfPresent, syncDirectory } from "./durable-file.js";
import { ConfigError } from "./errors.js";

/**
 * The text of a key file, or undefined when there is none. A file that other users may read is
 * refused with `refuse(message)`: a key is its owner's alone.
 */
export async function readPrivateFile(
  path: string,
  refuse: (message: string) => Error,
): Promise<string | undefined> {
  const text = await readTextIfPresent(path);
  if (text === undefined) return undefined;
  const { mode } = await stat(path);
  if ((mode & 0o077) !== 0) {
    throw refuse(
      `${path}: readable by other users (mode ${(mode & 0o777).toString(8)}); chmod 600 it`,
    );
  }
  return text;
}

/**
 * Creates `path` holding `text`, mode 0600 (its directory, when made here, 0700), unless it
 * exists: false then, and the file is left as it is. The text is written whole under a private
 * name, synced, then linked into place, so that processes starting at once on one directory see
 * no file or a complete one, and all of them end up with the same file.
 */
export async function createFileOnce(path: string, text: string): Promise<boolean> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const draft = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
  const file = await open(draft, "wx", 0o600);
  try {
    await file.writeFile(text, "utf8");
    await file.sync();
  } finally {
    await file.close();
  }
  let created = true;
  try {
    await link(draft, path);
  } catch (error) {
    // Another process sharing the directory created it first: theirs stands.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    created = false;
  } finally {
    await unlink(draft);
  }
  await syncDirectory(dirname(path));
  return created;
}

/**
 * A secret of `length` random bytes kept in a file as base64 and a newline (see
 * {@link createFileOnce}): read when the file exists, else generated and written. A file readable
 * by other users, or not holding `length` bytes, throws ConfigError.
 */
export async function loadOrCreateKeyFile(path: string, length: number): Promise<Uint8Array> {
  const existing = await readKeyFile(path, length);
  if (existing !== undefined) return existing;
  const secret = new Uint8Array(randomBytes(length));
  if (await createFileOnce(path, `${encodeBase64(secret)}\n`)) return secret;
  return (await readKeyFile(path, length)) as Uint8Array;
}

async function readKeyFile(path: string, length: number): Promise<Uint8Array | undefined> {
  const text = await readPrivateFile(path, (message) => new ConfigError([message]));
  if (text === undefined) return undefined;
  try {
    return decodeBase64(text.trim(), length);
  } catch {
    throw new ConfigError([`${path}: must hold the base64 of ${length} bytes`]);
  }
}
