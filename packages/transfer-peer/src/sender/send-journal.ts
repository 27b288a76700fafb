import { createHash } from "node:crypto";
import { mkdir, stat, unlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import { decodeBase64, encodeBase64, normalizeAddress } from "@svc/canonical";
import { isErrno, readTextIfPresent, writeFileAtomic } from "@svc/node-kit";
import { CHUNK_AEADS, type ChunkAead, isStreamId } from "@svc/protocol/transfer";
import type { ResumeInfo } from "./options.js";

/** Where a file is sent: the receiver's address and its HTTP server. */
export interface SendRoute {
  to: string;
  peer: string;
}

/** What an entry is about; the file is known by path, size and mtime, as rsync knows it. */
interface EntryKey {
  path: string;
  size: number;
  mtimeMs: number;
  to: string;
  peer: string;
}

interface Entry extends EntryKey {
  /** The entry format's. */
  version: 1;
  streamId: string;
  /** base64 */
  key: string;
  lanes: number;
  chunkBytes: number;
  /** The stream's transfer wire version; absent: 1 (entries written before version 2). */
  streamVersion?: 2;
  /** A version 2 stream's chunk AEAD. */
  cipher?: ChunkAead;
  /** A version 1 stream's. */
  sha256?: string;
}

/**
 * The streams a sender may resume, one JSON file per (file, receiver) in a directory: a
 * `svc transfer send` that dies leaves its entry, and the next one for the same unchanged file
 * and receiver resumes the stream. Entries hold stream keys: files are 0600, written
 * atomically, in a 0700 directory.
 */
export class SendJournal {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  /**
   * The stream to resume for `file` to `route`, if one was saved for the file as it is now. An
   * entry that cannot be read as one is treated as absent: the file is then sent anew.
   */
  async lookup(file: string, route: SendRoute): Promise<ResumeInfo | undefined> {
    const key = await entryKey(file, route);
    if (key === undefined) return undefined;
    const text = await readTextIfPresent(this.#pathOf(key));
    return text === undefined ? undefined : parseEntry(text, key);
  }

  /** Records `stream` for `file` to `route` (call it on the transfer's `started` event). */
  async save(file: string, route: SendRoute, stream: ResumeInfo): Promise<void> {
    const key = await entryKey(file, route);
    if (key === undefined) throw new Error(`${file} does not exist`);
    const entry: Entry = {
      version: 1,
      ...key,
      streamId: stream.streamId,
      key: encodeBase64(stream.key),
      lanes: stream.lanes,
      chunkBytes: stream.chunkBytes,
      ...(stream.version === 2
        ? { streamVersion: 2, cipher: stream.cipher ?? "aes-256-gcm" }
        : { sha256: stream.sha256 }),
    };
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.#pathOf(key), `${JSON.stringify(entry, null, 2)}\n`);
  }

  /** Forgets the stream of `file` to `route` (once it is finished); absent is fine. */
  async remove(file: string, route: SendRoute): Promise<void> {
    const key = await entryKey(file, route);
    if (key === undefined) return;
    await unlink(this.#pathOf(key)).catch((error: unknown) => {
      if (!isErrno(error, "ENOENT")) throw error;
    });
  }

  #pathOf(key: EntryKey): string {
    const id = createHash("sha256")
      .update(JSON.stringify([key.path, key.size, key.mtimeMs, key.to, key.peer]))
      .digest("hex");
    return join(this.dir, `${id}.json`);
  }
}

/** The key of `file` as it is now; undefined when there is no such file. */
async function entryKey(file: string, route: SendRoute): Promise<EntryKey | undefined> {
  const path = resolve(file);
  try {
    const info = await stat(path);
    return {
      path,
      size: info.size,
      mtimeMs: info.mtimeMs,
      to: normalizeAddress(route.to),
      peer: route.peer.replace(/\/+$/, ""),
    };
  } catch (error) {
    if (isErrno(error, "ENOENT")) return undefined;
    throw error;
  }
}

function parseEntry(text: string, key: EntryKey): ResumeInfo | undefined {
  let entry: Partial<Entry>;
  try {
    entry = JSON.parse(text) as Partial<Entry>;
  } catch {
    return undefined;
  }
  const same = (Object.keys(key) as (keyof EntryKey)[]).every((name) => entry[name] === key[name]);
  const { streamId, lanes, chunkBytes, sha256, streamVersion, cipher } = entry;
  const hashed = typeof sha256 === "string" && /^[0-9a-f]{64}$/.test(sha256);
  if (
    !same ||
    entry.version !== 1 ||
    typeof streamId !== "string" ||
    !isStreamId(streamId) ||
    !Number.isSafeInteger(lanes) ||
    !Number.isSafeInteger(chunkBytes) ||
    (streamVersion === 2
      ? sha256 !== undefined || cipher === undefined || !CHUNK_AEADS.includes(cipher)
      : streamVersion !== undefined || cipher !== undefined || !hashed)
  ) {
    return undefined;
  }
  let streamKey: Uint8Array;
  try {
    streamKey = decodeBase64(String(entry.key), 32);
  } catch {
    return undefined;
  }
  return {
    streamId,
    key: streamKey,
    lanes: lanes as number,
    chunkBytes: chunkBytes as number,
    ...(streamVersion === 2 ? { version: 2 as const, cipher, size: key.size } : { sha256 }),
  };
}
