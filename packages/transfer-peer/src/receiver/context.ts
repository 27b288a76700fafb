import { KeyedSerial } from "@svc/canonical";
import { badRequest, SvcError } from "@svc/protocol";
import { type ChunkCipher, isStreamId } from "@svc/protocol/transfer";
import type { Context } from "hono";
import { ReceivedFiles } from "../partial/received-files.js";
import type { StreamRecord } from "../store/transfer-store.js";
import { BodyPool } from "./body-pool.js";
import { loadBudget } from "./expiry.js";
import { LaneArrivals } from "./lane-arrivals.js";
import {
  type ResolvedReceiverOptions,
  resolveReceiverOptions,
  type TransferReceiverOptions,
} from "./options.js";
import { StreamBudget } from "./stream-budget.js";

/** What the receiver's routes share. */
export interface Receiver {
  readonly options: ResolvedReceiverOptions;
  readonly files: ReceivedFiles;
  /** Chunks of one lane of one stream are taken one at a time (key `<streamId>/<laneId>`). */
  readonly lanes: KeyedSerial;
  /** Chunk bodies for reuse. */
  readonly bodies: BodyPool;
  /** The chunk requests under way, per lane: a lane's next chunk waits for its previous one. */
  readonly arrivals: LaneArrivals;
  /** Control messages of one stream are applied one at a time. */
  readonly streams: KeyedSerial;
  /** What the unfinished streams reserve. */
  readonly budget: StreamBudget;
  /** Resolves once the budget knows the streams found on disk (see loadBudget); tried again after a failure. */
  ready(): Promise<void>;
}

/** Chunk bodies kept idle for reuse: eight of the default 4 MiB chunks. */
const IDLE_BODY_BYTES = 8 * (4 * 1024 * 1024 + 64);

export function createReceiver(options: TransferReceiverOptions): Receiver {
  const resolved = resolveReceiverOptions(options);
  let loading: Promise<void> | undefined;
  const receiver: Receiver = {
    options: resolved,
    files: new ReceivedFiles(resolved.dir),
    lanes: new KeyedSerial(),
    arrivals: new LaneArrivals(resolved.arrivalGraceMs),
    // Two chunks in flight on each of a few lanes, at the largest chunks.
    bodies: new BodyPool(IDLE_BODY_BYTES),
    streams: new KeyedSerial(),
    budget: new StreamBudget({
      streamsPerSender: resolved.maxStreamsPerSender,
      bytesPerSender: resolved.maxReservedBytesPerSender,
      bytes: resolved.maxReservedBytes,
      idleTtlMs: resolved.partialTtlMs,
    }),
    ready() {
      loading ??= loadBudget(receiver).catch((error: unknown) => {
        loading = undefined;
        throw error;
      });
      return loading;
    },
  };
  return receiver;
}

/** The `:streamId` path parameter; 400 unless a StreamId. */
export function pathStreamId(c: Context): string {
  const streamId = c.req.param("streamId") ?? "";
  if (!isStreamId(streamId)) throw badRequest("streamId must be 22 characters of base64url");
  return streamId;
}

/** The stream's record; 404 SVC_STREAM_NOT_FOUND when there is none. */
export async function requireStream(receiver: Receiver, streamId: string): Promise<StreamRecord> {
  const stream = await receiver.options.store.get(streamId);
  if (!stream) throw new SvcError("SVC_STREAM_NOT_FOUND", `no stream ${streamId}`);
  return stream;
}

/** The cipher of a stream's AEAD (its envelopes' type comes with it). */
export function cipherOf(receiver: Receiver, stream: StreamRecord): ChunkCipher {
  return stream.cipher === "aes-256-gcm" ? receiver.options.aesGcmCipher : receiver.options.cipher;
}
