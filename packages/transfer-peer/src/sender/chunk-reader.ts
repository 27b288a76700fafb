import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { type ChunkCipher, type StreamPlan, sealChunk } from "@svc/transfer-lanes";
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
 * Reads planned chunks at their offsets and seals them. Each lane has one read buffer, which
 * sealChunk copies into the envelope: a lane must not prepare two chunks at once.
 */
export class ChunkReader {
  readonly #options: ChunkReaderOptions;
  readonly #buffers = new Map<number, Buffer>();

  constructor(options: ChunkReaderOptions) {
    this.#options = options;
  }

  async prepare(laneId: number, seq: bigint): Promise<PreparedChunk> {
    const { plan, key, streamId, cipher } = this.#options;
    const planned = plan.chunkAt(laneId, seq);
    if (planned === undefined) throw new RangeError(`lane ${laneId} has no chunk ${seq}`);
    const data = await this.#read(laneId, planned.offset, planned.length);
    const envelope = sealChunk(
      { key, streamId, laneId, seq, offset: planned.offset, data },
      cipher,
    );
    const bodyHash = createHash("sha256").update(envelope).digest("hex");
    return { laneId, seq, envelope, bodyHash };
  }

  async #read(laneId: number, offset: number, length: number): Promise<Uint8Array> {
    let buffer = this.#buffers.get(laneId);
    if (buffer === undefined) {
      const { chunkBytes, size } = this.#options.plan;
      buffer = Buffer.allocUnsafe(Math.min(chunkBytes, size));
      this.#buffers.set(laneId, buffer);
    }
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await this.#options.file.read(
        buffer,
        filled,
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
    return buffer.subarray(0, length);
  }
}
