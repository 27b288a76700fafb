import { badRequest } from "../errors.js";
import { MAX_LANE_ID } from "./assert.js";

export interface StreamShape {
  /** File size in bytes. */
  size: number;
  /** Data bytes per chunk; the last chunk may be shorter. */
  chunkBytes: number;
  lanes: number;
}

/** Where a chunk's data sits in the file. */
export interface PlannedChunk {
  offset: number;
  length: number;
}

/**
 * Chunk i (0-based) of the file travels on lane i mod lanes with seq floor(i / lanes) + 1 and
 * starts at byte i * chunkBytes. Sender and receiver derive the same plan from the start
 * message, so a chunk whose offset or length differs from its plan is refused, and resuming
 * from each lane's lastSeqAcked misses and repeats nothing.
 */
export interface StreamPlan extends StreamShape {
  /** ceil(size / chunkBytes): a zero-byte file has none. */
  readonly chunkCount: number;
  chunksInLane(laneId: number): number;
  /** The planned chunk, or undefined when the lane or seq is past the end of the file. */
  chunkAt(laneId: number, seq: bigint): PlannedChunk | undefined;
  /** Bytes covered by every lane's chunks 1..lastSeqAcked[lane]. */
  bytesAcked(lastSeqAcked: readonly bigint[]): number;
  /** Whether every lane has acked its last chunk. */
  isComplete(lastSeqAcked: readonly bigint[]): boolean;
}

/** A shape from a start message; one that cannot be planned is a 400. */
export function planStream(shape: StreamShape): StreamPlan {
  const { size, chunkBytes, lanes } = shape;
  if (!Number.isSafeInteger(size) || size < 0) throw badRequest("size must be an integer ≥ 0");
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes < 1) {
    throw badRequest("chunkBytes must be an integer ≥ 1");
  }
  if (!Number.isSafeInteger(lanes) || lanes < 1 || lanes > MAX_LANE_ID + 1) {
    throw badRequest("lanes must be an integer in 1..2^32");
  }
  const chunkCount = Math.ceil(size / chunkBytes);

  const chunksInLane = (laneId: number): number =>
    Number.isInteger(laneId) && laneId >= 0 && laneId < lanes
      ? Math.floor(chunkCount / lanes) + (laneId < chunkCount % lanes ? 1 : 0)
      : 0;

  const chunk = (index: number): PlannedChunk => {
    const offset = index * chunkBytes;
    return { offset, length: Math.min(chunkBytes, size - offset) };
  };

  /** Acked chunks per lane, checked against the plan. */
  const ackedCounts = (lastSeqAcked: readonly bigint[]): number[] => {
    if (lastSeqAcked.length !== lanes) {
      throw new RangeError(`lastSeqAcked has ${lastSeqAcked.length} lanes, the plan ${lanes}`);
    }
    return lastSeqAcked.map((seq, laneId) => {
      const planned = chunksInLane(laneId);
      if (seq < 0n || seq > BigInt(planned)) {
        throw new RangeError(`lane ${laneId} acked seq ${seq} of its ${planned} chunks`);
      }
      return Number(seq);
    });
  };

  return {
    size,
    chunkBytes,
    lanes,
    chunkCount,
    chunksInLane,
    chunkAt(laneId, seq) {
      if (seq < 1n || seq > BigInt(chunksInLane(laneId))) return undefined;
      return chunk((Number(seq) - 1) * lanes + laneId);
    },
    bytesAcked(lastSeqAcked) {
      let bytes = 0;
      for (const [laneId, acked] of ackedCounts(lastSeqAcked).entries()) {
        if (acked === 0) continue;
        const last = chunk((acked - 1) * lanes + laneId);
        bytes += (acked - 1) * chunkBytes + last.length;
      }
      return bytes;
    },
    isComplete(lastSeqAcked) {
      return ackedCounts(lastSeqAcked).every((acked, laneId) => acked === chunksInLane(laneId));
    },
  };
}
