import { SvcError } from "@svc/protocol";
import type { ChunkAead, StreamStatus } from "@svc/protocol/transfer";

/** What a receiver keeps of one stream: what the start message said, and how far each lane is. */
export interface StreamRecord {
  streamId: string;
  /** The (normalized) address that started the stream: only its requests count for it. */
  sender: string;
  /** The safe base name the file is saved under once finished (see safeFileName). */
  name: string;
  /**
   * The transfer wire version the stream was started with: 1, the file's SHA-256 in the start
   * message; 2, the SHA-256 in the finish message, and the key replaced on each send attempt.
   */
  version: 1 | 2;
  /** The chunks' AEAD: ChaCha20-Poly1305 (0x11 envelopes) or AES-256-GCM (0x12, version 2). */
  cipher: ChunkAead;
  size: number;
  /**
   * Lower-hex SHA-256 of the whole file from a version 1 start; a version 2 stream's comes with
   * its finish.
   */
  sha256?: string | undefined;
  chunkBytes: number;
  /**
   * The chunks' current 32-byte key for `cipher`: a secret.
   */
  key: Uint8Array;
  status: StreamStatus;
  /**
   * One entry per lane (index = laneId, length = the stream's lane count): the highest seq
   * accepted with every seq before it, 0n before the first.
   */
  lastSeqAcked: readonly bigint[];
  createdAt: number;
  /** When the status, a lane or the key last moved. */
  updatedAt: number;
}

/**
 * The receiver's stream state, kept where a restart finds it. Each change is a compare-and-set,
 * so that two requests racing for one change (two copies of a chunk, a pause against a finish)
 * cannot both make it.
 */
export interface TransferStore {
  /** Records a new stream; SVC_INVALID_TRANSITION when one with its id exists, in any status. */
  create(stream: StreamRecord): Promise<void>;
  get(streamId: string): Promise<StreamRecord | undefined>;
  /**
   * Moves a lane's lastSeqAcked from seq - 1 to seq while the stream is active. False, with
   * nothing changed, when it was not seq - 1, the stream is not active, or there is no such lane.
   */
  advanceLane(streamId: string, laneId: number, seq: bigint): Promise<boolean>;
  /** Moves the status from `from` to `to`; false, with nothing changed, when it is not `from`. */
  setStatus(streamId: string, from: StreamStatus, to: StreamStatus): Promise<boolean>;
  /**
   * Replaces the key of an unfinished (active or paused) version 2 stream, moving its updatedAt;
   * false, with nothing changed, when there is no such stream, it is finished or aborted, or it
   * is a version 1 stream. Durable before it resolves.
   */
  rekey(streamId: string, key: Uint8Array): Promise<boolean>;
  /**
   * Removes the record of an unfinished stream that has not moved since `idleSince` (its
   * updatedAt is at most that, its status active or paused): an expired stream. False, with
   * nothing changed, otherwise.
   */
  removeIdle(streamId: string, idleSince: number): Promise<boolean>;
}

/** The statuses of a stream whose data may still arrive: it holds a partial file. */
export const UNFINISHED: readonly StreamStatus[] = ["active", "paused"];

/** create()'s refusal of a taken id: a second start of a stream. */
export function streamExists(streamId: string): SvcError {
  return new SvcError("SVC_INVALID_TRANSITION", `stream ${streamId} exists already`);
}
