import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdtemp, open, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { ReadableStream } from "node:stream/web";

/** A file path, or a stream whose bytes are sent (spooled to a temporary file first). */
export type SendSource = string | Readable | ReadableStream<Uint8Array>;

/** The file a send reads its chunks from, and its SHA-256 when it was hashed before the send. */
export interface SourceFile {
  path: string;
  name: string;
  size: number;
  sha256: string | undefined;
  /** Deletes a spooled file; nothing for a caller's own file. */
  cleanup(): Promise<void>;
}

const READ_BYTES = 1024 * 1024;

/**
 * The source as a file: a path as it is (checked to be a regular file, not read), a stream
 * written to a private temporary file and hashed on the way (at no extra read), since every
 * start names the size and so a stream cannot be sent while it is read.
 */
export async function sourceFile(
  source: SendSource,
  name: string | undefined,
  signal: AbortSignal,
): Promise<SourceFile> {
  if (typeof source === "string") {
    const info = await stat(source);
    if (!info.isFile()) throw new TypeError(`${source} is not a regular file`);
    const base = name ?? basename(source);
    return {
      path: source,
      name: base,
      size: info.size,
      sha256: undefined,
      cleanup: async () => {},
    };
  }
  if (name === undefined) throw new TypeError("options.name is required to send a stream");
  const dir = await mkdtemp(join(tmpdir(), "svc-transfer-"));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    const path = join(dir, "spool");
    const readable = source instanceof ReadableStream ? Readable.fromWeb(source) : source;
    const { size, sha256 } = await spoolHashed(
      readable,
      createWriteStream(path, { flags: "wx", mode: 0o600 }),
      signal,
    );
    return { path, name, size, sha256, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/**
 * The file with its SHA-256, read for it unless it has one: a version 1 start names it, so such
 * a stream reads its file once before the first chunk.
 */
export async function hashedSourceFile(file: SourceFile, signal: AbortSignal): Promise<SourceFile> {
  if (file.sha256 !== undefined) return file;
  return { ...file, ...(await hashFile(file.path, signal)) };
}

/**
 * Size and lower-hex SHA-256 of a file, read into one buffer over and over: a read stream's new
 * buffer per read is garbage that, over gigabytes, holds the RSS up by tens of MiB.
 */
async function hashFile(path: string, signal: AbortSignal): Promise<Hashed> {
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(READ_BYTES);
  const file = await open(path, "r");
  try {
    let size = 0;
    for (;;) {
      signal.throwIfAborted();
      const { bytesRead } = await file.read(buffer, 0, READ_BYTES, size);
      if (bytesRead === 0) return { size, sha256: hash.digest("hex") };
      hash.update(buffer.subarray(0, bytesRead));
      size += bytesRead;
    }
  } finally {
    await file.close();
  }
}

/** Size and lower-hex SHA-256 of a stream, written on to `sink` as it is hashed. */
async function spoolHashed(
  readable: Readable,
  sink: NodeJS.WritableStream,
  signal: AbortSignal,
): Promise<Hashed> {
  const hash = createHash("sha256");
  let size = 0;
  await pipeline(
    readable,
    async function* (chunks: AsyncIterable<Uint8Array>) {
      for await (const chunk of chunks) {
        hash.update(chunk);
        size += chunk.length;
        yield chunk;
      }
    },
    sink,
    { signal },
  );
  return { size, sha256: hash.digest("hex") };
}

interface Hashed {
  size: number;
  sha256: string;
}
