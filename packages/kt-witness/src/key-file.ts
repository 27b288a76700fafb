import { randomBytes } from "node:crypto";
import { link, mkdir, open, readFile, stat, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import {
  formatSignerKey,
  isValidKeyName,
  parseSignerKey,
  SignedNoteError,
  type Signer,
} from "@svc/signed-note";
import { WitnessError } from "./errors.js";

/**
 * The witness's signer key from `path` (Go's `PRIVATE+KEY+<name>+<key ID>+<base64>` and a
 * newline, mode 0600), or undefined when there is no such file. A file that others may read,
 * that does not parse, or that is not a regular file throws WitnessError WITNESS_KEY_FILE.
 */
export async function readSignerKeyFile(path: string): Promise<Signer | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    throw keyFileError(`${path}: cannot be read (${code ?? String(error)})`, error);
  }
  const { mode } = await stat(path);
  if ((mode & 0o077) !== 0) {
    throw keyFileError(
      `${path}: readable by other users (mode ${(mode & 0o777).toString(8)}); chmod 600 it`,
    );
  }
  try {
    return parseSignerKey(text.endsWith("\n") ? text.slice(0, -1) : text);
  } catch (error) {
    if (!(error instanceof SignedNoteError)) throw error;
    throw keyFileError(`${path}: not a signer key (${error.message})`, error);
  }
}

/**
 * The signer key of `path`, created on first use with a new random Ed25519 key named `name`
 * (mode 0600, written aside and linked into place, so never seen half-written; two processes
 * starting at once end up with the same key). A file holding a key of another name throws
 * WitnessError WITNESS_KEY_FILE: the name is part of the key ID that verifiers pin.
 */
export async function loadOrCreateSignerKey(path: string, name: string): Promise<Signer> {
  if (!isValidKeyName(name)) {
    throw new RangeError(`name must be a key name (non-empty, no '+' or white space): ${name}`);
  }
  const existing = (await readSignerKeyFile(path)) ?? (await create(path, name));
  if (existing.name !== name) {
    throw keyFileError(`${path}: holds the key of ${existing.name}, not ${name}`);
  }
  return existing;
}

async function create(path: string, name: string): Promise<Signer> {
  const text = `${formatSignerKey(name, new Uint8Array(randomBytes(32)))}\n`;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const draft = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
  const file = await open(draft, "wx", 0o600);
  try {
    await file.writeFile(text, "utf8");
    await file.sync();
  } finally {
    await file.close();
  }
  try {
    await link(draft, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    // Another process created it first: use theirs (below).
  } finally {
    await unlink(draft);
  }
  const directory = await open(dirname(path), "r");
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
  const created = await readSignerKeyFile(path);
  if (created === undefined) throw keyFileError(`${path}: removed while it was being created`);
  return created;
}

function keyFileError(message: string, cause?: unknown): WitnessError {
  return new WitnessError("WITNESS_KEY_FILE", message, { cause });
}
