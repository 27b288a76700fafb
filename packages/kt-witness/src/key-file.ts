import { randomBytes } from "node:crypto";
import { createFileOnce, readPrivateFile } from "@svc/node-kit";
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
  let text: string | undefined;
  try {
    text = await readPrivateFile(path, (message) => keyFileError(message));
  } catch (error) {
    if (error instanceof WitnessError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw keyFileError(`${path}: cannot be read (${code ?? String(error)})`, error);
  }
  if (text === undefined) return undefined;
  try {
    return parseSignerKey(text.endsWith("\n") ? text.slice(0, -1) : text);
  } catch (error) {
    if (!(error instanceof SignedNoteError)) throw error;
    throw keyFileError(`${path}: not a signer key (${error.message})`, error);
  }
}

/**
 * The signer key of `path`, created on first use with a new random Ed25519 key named `name`
 * (mode 0600, see createFileOnce of @svc/node-kit: never seen half-written, and two processes
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
  await createFileOnce(path, `${formatSignerKey(name, new Uint8Array(randomBytes(32)))}\n`);
  const created = await readSignerKeyFile(path);
  if (created === undefined) throw keyFileError(`${path}: removed while it was being created`);
  return created;
}

function keyFileError(message: string, cause?: unknown): WitnessError {
  return new WitnessError("WITNESS_KEY_FILE", message, { cause });
}
