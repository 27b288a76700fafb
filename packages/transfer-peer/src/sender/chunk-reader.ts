import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import {
  CHUNK_DATA_AT,
  CHUNK_OVERHEAD_BYTES,
  type ChunkCipher,
  type StreamPlan,
  sealChunk,
} from "@svc/protocol/transfer";
import { TransferError } from "./errors.js";

/** A chunk ready to send: its envelope and the envelope's SHA-256, which the signature covers. */
export interface PreparedChunk {
  laneId: number;
  seq: bigint;
  envelope: Uint8Array;
  bodyHash: string;
}

export interface ChunkReaderOptions {
  file: FileHandle;
  plan: StreamPlan;
  key: Uint8Array;
  streamId: Uint8Array;
  cipher: ChunkCipher;
  /** Envelope buffers per lane, used in turn: one per chunk in flight and one read ahead. */
  buffersPerLane: number;
  /** Given each chunk's data as read, before it is sealed over (a version 2 stream's hash). */
  onRead?: (offset: number, data: Uint8Array) => void;
}

/**
 * Reads planned chunks at their offsets, straight into an envelope buffer of the lane, and seals
 * them there: no 4 MiB allocation per chunk (it was the sender's garbage collection). Each lane
 * has `buffersPerLane` envelope buffers, used in turn. So a lane must not prepare a chunk before
 * the one prepared `buffersPerLane` before it is no longer being sent, nor two chunks at once.
 */
export class ChunkReader {
  readonly #options: ChunkReaderOptions;
  readonly #buffers = new Map<number, { envelopes: Buffer[]; next: number }>();

  constructor(options: ChunkReaderOptions) {
    this.#options = options;
  }

  async prepare(laneId: number, seq: bigint): Promise<PreparedChunk> {
    const { plan, key, streamId, cipher } = this.#options;
    const planned = plan.chunkAt(laneId, seq);
    if (planned === undefined) throw new RangeError(`lane ${laneId} has no chunk ${seq}`);
    const into = this.#envelopeBuffer(laneId);
    const data = await this.#read(into, planned.offset, planned.length);
    this.#options.onRead?.(planned.offset, data);
    const envelope = sealChunk(
      { key, streamId, laneId, seq, offset: planned.offset, data },
      cipher,
      into,
    );
    const bodyHash = createHash("sha256").update(envelope).digest("hex");
    return { laneId, seq, envelope, bodyHash };
  }

  /** The lane's envelope buffer used longest ago. */
  #envelopeBuffer(laneId: number): Buffer {
    let lane = this.#buffers.get(laneId);
    if (lane === undefined) {
      const { plan, buffersPerLane } = this.#options;
      const bytes = CHUNK_OVERHEAD_BYTES + Math.min(plan.chunkBytes, plan.size);
      const envelopes = Array.from({ length: buffersPerLane }, () => Buffer.allocUnsafe(bytes));
      lane = { envelopes, next: 0 };
      this.#buffers.set(laneId, lane);
    }
    const buffer = lane.envelopes[lane.next] as Buffer;
    lane.next = (lane.next + 1) % lane.envelopes.length;
    return buffer;
  }

  /** Reads `length` bytes at `offset` into the envelope's data. */
  async #read(into: Buffer, offset: number, length: number): Promise<Uint8Array> {
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await this.#options.file.read(
        into,
        CHUNK_DATA_AT + filled,
        length - filled,
        offset + filled,
      );
      if (bytesRead === 0) {
        throw new TransferError(
          "SOURCE_CHANGED",
          `the file ends at byte ${offset + filled}, before the ${this.#options.plan.size} bytes the stream was started with`,
        );
      }
      filled += bytesRead;
    }
    return into.subarray(CHUNK_DATA_AT, CHUNK_DATA_AT + length);
  }
}
