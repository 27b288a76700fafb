import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import {
  CHUNK_DATA_AT,
  CHUNK_OVERHEAD_BYTES,
  type ChunkCipher,
  type StreamPlan,
  sealChunk,
} from "@svc/transfer-lanes";
import { TransferError } from "./errors.js";

/** A chunk ready to send: its 0x11 envelope and the envelope's SHA-256, which the signature covers. */
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
}

/**
 * Reads planned chunks at their offsets, straight into an envelope buffer of the lane, and seals
 * them there: no 4 MiB allocation per chunk (it was the sender's garbage collection). Each lane
 * has two envelope buffers, used in turn: one for the chunk in flight, one for the chunk read
 * and sealed ahead. So a lane must not prepare a chunk before the one prepared two before it is
 * no longer being sent, nor two chunks at once.
 */
export class ChunkReader {
  readonly #options: ChunkReaderOptions;
  readonly #buffers = new Map<number, { envelopes: [Buffer, Buffer]; next: 0 | 1 }>();

  constructor(options: ChunkReaderOptions) {
    this.#options = options;
  }

  async prepare(laneId: number, seq: bigint): Promise<PreparedChunk> {
    const { plan, key, streamId, cipher } = this.#options;
    const planned = plan.chunkAt(laneId, seq);
    if (planned === undefined) throw new RangeError(`lane ${laneId} has no chunk ${seq}`);
    const into = this.#envelopeBuffer(laneId);
    const data = await this.#read(into, planned.offset, planned.length);
    const envelope = sealChunk(
      { key, streamId, laneId, seq, offset: planned.offset, data },
      cipher,
      into,
    );
    const bodyHash = createHash("sha256").update(envelope).digest("hex");
    return { laneId, seq, envelope, bodyHash };
  }

  /** The lane's envelope buffer not used by the chunk prepared last. */
  #envelopeBuffer(laneId: number): Buffer {
    let lane = this.#buffers.get(laneId);
    if (lane === undefined) {
      const { chunkBytes, size } = this.#options.plan;
      const bytes = CHUNK_OVERHEAD_BYTES + Math.min(chunkBytes, size);
      lane = { envelopes: [Buffer.allocUnsafe(bytes), Buffer.allocUnsafe(bytes)], next: 0 };
      this.#buffers.set(laneId, lane);
    }
    const buffer = lane.envelopes[lane.next];
    lane.next = lane.next === 0 ? 1 : 0;
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
          `the file ends at byte ${offset + filled}, before the ${this.#options.plan.size} bytes it was hashed with`,
        );
      }
      filled += bytesRead;
    }
    return into.subarray(CHUNK_DATA_AT, CHUNK_DATA_AT + length);
  }
}
