import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, stat, unlink, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { decodeBase64, encodeBase64 } from "@svc/canonical";
import { ConfigError } from "./env.js";

/**
 * A secret of `length` random bytes kept in a file as base64, mode 0600 (its directory, when
 * made here, 0700): read when the file exists, else generated and written. Several processes may start at once on one directory: all
 * of them end up with the same secret. A file readable by other users is refused.
 */
export async function loadOrCreateKeyFile(path: string, length: number): Promise<Uint8Array> {
  const existing = await readKeyFile(path, length);
  if (existing !== undefined) return existing;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const secret = new Uint8Array(randomBytes(length));
  // Written whole under a private name, then linked into place: another process starting at the
  // same moment sees either no key file or a complete one, never a half-written file.
  const draft = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
  await writeFile(draft, `${encodeBase64(secret)}\n`, { flag: "wx", mode: 0o600 });
  try {
    await link(draft, path);
    return secret;
  } catch (error) {
    // Another process sharing the directory created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return (await readKeyFile(path, length)) as Uint8Array;
  } finally {
    await unlink(draft);
  }
}

async function readKeyFile(path: string, length: number): Promise<Uint8Array | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const { mode } = await stat(path);
  if ((mode & 0o077) !== 0) {
    throw new ConfigError([
      `${path}: readable by other users (mode ${(mode & 0o777).toString(8)}); chmod 600 it`,
    ]);
  }
  try {
    return decodeBase64(text.trim(), length);
  } catch {
    throw new ConfigError([`${path}: must hold the base64 of ${length} bytes`]);
  }
}
