import { mkdir, readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { decodeBase64, encodeBase64, KeyedSerial } from "@svc/canonical";
import {
  isErrno,
  KeyedBatches,
  LruMap,
  readTextIfPresent,
  TEMP_SUFFIX,
  writeFileAtomic,
} from "@svc/node-kit";
import {
  CHUNK_AEADS,
  isStreamId,
  STREAM_STATUSES,
  type StreamStatus,
} from "@svc/protocol/transfer";
import { applyAdvances, type LaneAdvance } from "./lane-advances.js";
import { createLaneSlots, type LaneProgress, readLaneSlots, writeLaneSlots } from "./lane-slots.js";
import {
  type StreamRecord,
  streamExists,
  type TransferStore,
  UNFINISHED,
} from "./transfer-store.js";

export interface FileTransferStoreOptions {
  /** Created (mode 0700) when missing. */
  dir: string;
  now?: () => number;
}

/**
 * The JSON of a stream file: the record with the key in base64, its lane count in place of the
 * lanes' progress (which the slots file holds), and `updatedAt` of its last status change or
 * rekey.
 */
interface StreamFile extends Omit<StreamRecord, "key" | "lastSeqAcked"> {
  key: string;
  lanes: number;
}

interface Loaded {
  stream: StreamRecord;
  progress: LaneProgress;
}

/**
 * Stream state for apps without a database, two files per stream, mode 0600 (the stream key is
 * a secret): `<streamId>.json`, what the start message said and the status, each change written
 * atomically (see writeFileAtomic), and `<streamId>.lanes`, the lanes' progress (see
 * lane-slots.ts), which moves with every chunk. Changes to one stream are serialized within the
 * process; one process at a time may use a directory.
 */
export function fileTransferStore(options: FileTransferStoreOptions): TransferStore {
  const { dir } = options;
  const now = options.now ?? Date.now;
  const serial = new KeyedSerial();
  // Every chunk reads its stream's record three times: from memory, not six files a chunk. A
  // record goes in only once on disk, so this reads nothing that a restart would not.
  const recent = new LruMap<string, Loaded>(RECENT_STREAMS);
  let ready: Promise<void> | undefined;

  const pathOf = (streamId: string, suffix: ".json" | ".lanes"): string => {
    if (!isStreamId(streamId)) throw new RangeError(`${streamId} is not a stream id`);
    return join(dir, `${streamId}${suffix}`);
  };

  async function load(streamId: string): Promise<Loaded | undefined> {
    const known = recent.get(streamId);
    if (known) return known;
    ready ??= prepare(dir);
    await ready;
    const path = pathOf(streamId, ".json");
    const text = await readTextIfPresent(path);
    if (text === undefined) return undefined;
    const file = decodeStreamFile(path, text);
    const progress = await readLaneSlots(pathOf(streamId, ".lanes"), file.lanes);
    const { lanes: _, ...record } = file;
    const stream: StreamRecord = {
      ...record,
      lastSeqAcked: progress.lastSeqAcked,
      updatedAt: Math.max(record.updatedAt, progress.updatedAt),
    };
    const loaded = { stream, progress };
    recent.set(streamId, loaded);
    return loaded;
  }

  /** Runs a write of the stream's files, then remembers `after`; if it fails, reads them again. */
  async function saving(streamId: string, save: () => Promise<void>, after: Loaded): Promise<void> {
    try {
      await save();
      recent.set(streamId, after);
    } catch (error) {
      recent.delete(streamId);
      throw error;
    }
  }

  const write = (stream: StreamRecord): Promise<void> =>
    writeFileAtomic(pathOf(stream.streamId, ".json"), JSON.stringify(encodeStreamFile(stream)));

  // The advances that queue while one is written share the next write.
  const advances = new KeyedBatches<LaneAdvance, boolean>(serial, async (streamId, batch) => {
    const loaded = await load(streamId);
    if (!loaded) return batch.map(() => false);
    const { changed, advanced } = applyAdvances(loaded.stream, batch);
    if (changed) {
      const progress = {
        version: loaded.progress.version + 1n,
        updatedAt: now(),
        lastSeqAcked: changed.lastSeqAcked,
      };
      const stream = { ...changed, updatedAt: progress.updatedAt };
      await saving(streamId, () => writeLaneSlots(pathOf(streamId, ".lanes"), progress), {
        stream,
        progress,
      });
    }
    return advanced;
  });

  return {
    create(stream) {
      return serial.run(stream.streamId, async () => {
        if (await load(stream.streamId)) throw streamExists(stream.streamId);
        // The slots come first, so that a record is never without them; a crash between the
        // two leaves slots without a record, which the next create of that id replaces.
        const slots = pathOf(stream.streamId, ".lanes");
        await unlink(slots).catch((error) => {
          if (!isErrno(error, "ENOENT")) throw error;
        });
        const { lastSeqAcked, updatedAt } = stream;
        const progress = { version: 0n, updatedAt, lastSeqAcked };
        await saving(
          stream.streamId,
          async () => {
            await createLaneSlots(slots, progress);
            await write(stream);
          },
          { stream, progress },
        );
      });
    },

    async get(streamId) {
      return (await load(streamId))?.stream;
    },

    advanceLane(streamId, laneId, seq) {
      return advances.add(streamId, { laneId, seq });
    },

    setStatus(streamId, from, to) {
      return serial.run(streamId, async () => {
        const loaded = await load(streamId);
        if (loaded?.stream.status !== from) return false;
        const stream = { ...loaded.stream, status: to, updatedAt: now() };
        await saving(streamId, () => write(stream), { ...loaded, stream });
        return true;
      });
    },

    rekey(streamId, key) {
      return serial.run(streamId, async () => {
        const loaded = await load(streamId);
        if (loaded?.stream.version !== 2 || !UNFINISHED.includes(loaded.stream.status)) {
          return false;
        }
        const stream = { ...loaded.stream, key, updatedAt: now() };
        await saving(streamId, () => write(stream), { ...loaded, stream });
        return true;
      });
    },

    removeIdle(streamId, idleSince) {
      return serial.run(streamId, async () => {
        const loaded = await load(streamId);
        if (!loaded) return false;
        const { status, updatedAt } = loaded.stream;
        if (!UNFINISHED.includes(status) || updatedAt > idleSince) return false;
        recent.delete(streamId);
        // The record first: slots without a record are what create() expects after a crash.
        for (const suffix of [".json", ".lanes"] as const) {
          await unlink(pathOf(streamId, suffix)).catch((error) => {
            if (!isErrno(error, "ENOENT")) throw error;
          });
        }
        return true;
      });
    },
  };
}

/** Streams whose records are kept in memory, those used last. */
const RECENT_STREAMS = 256;

/** Creates the directory, and removes temporary files a crash left behind mid-write. */
async function prepare(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const name of await readdir(dir)) {
    if (name.endsWith(TEMP_SUFFIX)) await unlink(join(dir, name)).catch(() => undefined);
  }
}

function encodeStreamFile({ lastSeqAcked, key, ...stream }: StreamRecord): StreamFile {
  return { ...stream, key: encodeBase64(key), lanes: lastSeqAcked.length };
}

function decodeStreamFile(
  path: string,
  text: string,
): Omit<StreamFile, "key"> & { key: Uint8Array } {
  // A file an older build wrote has no version and no cipher: version 1, ChaCha20-Poly1305.
  const {
    version = 1,
    cipher = "chacha20-poly1305",
    ...file
  } = JSON.parse(text) as Partial<Pick<StreamFile, "version" | "cipher">> &
    Omit<StreamFile, "version" | "cipher">;
  if (
    !STREAM_STATUSES.includes(file.status as StreamStatus) ||
    (version !== 1 && version !== 2) ||
    !CHUNK_AEADS.includes(cipher) ||
    (version === 1 && cipher !== "chacha20-poly1305") ||
    !Number.isSafeInteger(file.lanes) ||
    file.lanes < 1
  ) {
    throw new Error(`${path} is not a stream record`);
  }
  return { ...file, version, cipher, key: decodeBase64(file.key, 32) };
}
