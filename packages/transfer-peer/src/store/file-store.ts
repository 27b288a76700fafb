import { mkdir, readdir, readFile, unlink } from "node:fs/promises";
import { join } from "node:path";
import { decodeBase64, encodeBase64 } from "@svc/canonical";
import { isStreamId, parseDecimalU64, STREAM_STATUSES, type StreamStatus } from "@svc/protocol";
import { isErrno, TEMP_SUFFIX, writeFileAtomic } from "../fs/durable.js";
import { KeyedBatches } from "../serial/keyed-batches.js";
import { KeyedSerial } from "../serial/keyed-serial.js";
import { applyAdvances, type LaneAdvance } from "./lane-advances.js";
import { type StreamRecord, streamExists, type TransferStore } from "./transfer-store.js";

export interface FileTransferStoreOptions {
  /** Created (mode 0700) when missing. */
  dir: string;
  now?: () => number;
}

/** The JSON of a stream file: the record with the key in base64 and seqs as decimal text. */
interface StreamFile extends Omit<StreamRecord, "key" | "lastSeqAcked"> {
  key: string;
  lastSeqAcked: string[];
}

/**
 * Stream state for apps without a database: `<dir>/<streamId>.json` per stream, mode 0600 (the
 * stream key is a secret), each change written atomically (see writeFileAtomic). Changes to one
 * stream are serialized within the process; one process at a time may use a directory.
 */
export function fileTransferStore(options: FileTransferStoreOptions): TransferStore {
  const { dir } = options;
  const now = options.now ?? Date.now;
  const serial = new KeyedSerial();
  let ready: Promise<void> | undefined;

  const pathOf = (streamId: string): string => {
    if (!isStreamId(streamId)) throw new RangeError(`${streamId} is not a stream id`);
    return join(dir, `${streamId}.json`);
  };

  async function read(streamId: string): Promise<StreamRecord | undefined> {
    ready ??= prepare(dir);
    await ready;
    const path = pathOf(streamId);
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if (isErrno(error, "ENOENT")) return undefined;
      throw error;
    }
    return decodeStreamFile(path, text);
  }

  const write = (stream: StreamRecord): Promise<void> =>
    writeFileAtomic(pathOf(stream.streamId), JSON.stringify(encodeStreamFile(stream)));

  /** Applies `change` to the stream under its lock; false when it gives nothing to write. */
  const update = (
    streamId: string,
    change: (stream: StreamRecord) => StreamRecord | undefined,
  ): Promise<boolean> =>
    serial.run(streamId, async () => {
      const stream = await read(streamId);
      const changed = stream && change(stream);
      if (!changed) return false;
      await write({ ...changed, updatedAt: now() });
      return true;
    });

  // One atomic rewrite (two fsyncs) per chunk held every lane of a stream behind the others:
  // the advances that queue while one is written share the next write.
  const advances = new KeyedBatches<LaneAdvance, boolean>(serial, async (streamId, batch) => {
    const stream = await read(streamId);
    if (!stream) return batch.map(() => false);
    const { changed, advanced } = applyAdvances(stream, batch);
    if (changed) await write({ ...changed, updatedAt: now() });
    return advanced;
  });

  return {
    create(stream) {
      return serial.run(stream.streamId, async () => {
        if (await read(stream.streamId)) throw streamExists(stream.streamId);
        await write(stream);
      });
    },

    get: read,

    advanceLane(streamId, laneId, seq) {
      return advances.add(streamId, { laneId, seq });
    },

    setStatus(streamId, from, to) {
      return update(streamId, (stream) =>
        stream.status === from ? { ...stream, status: to } : undefined,
      );
    },
  };
}

/** Creates the directory, and removes temporary files a crash left behind mid-write. */
async function prepare(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const name of await readdir(dir)) {
    if (name.endsWith(TEMP_SUFFIX)) await unlink(join(dir, name)).catch(() => undefined);
  }
}

function encodeStreamFile(stream: StreamRecord): StreamFile {
  return {
    ...stream,
    key: encodeBase64(stream.key),
    lastSeqAcked: stream.lastSeqAcked.map(String),
  };
}

function decodeStreamFile(path: string, text: string): StreamRecord {
  const file = JSON.parse(text) as StreamFile;
  const lastSeqAcked = file.lastSeqAcked.map(parseDecimalU64);
  if (
    !STREAM_STATUSES.includes(file.status as StreamStatus) ||
    !lastSeqAcked.every((seq) => seq !== undefined)
  ) {
    throw new Error(`${path} is not a stream record`);
  }
  return { ...file, key: decodeBase64(file.key, 32), lastSeqAcked };
}
