import { assertBytes } from "@svc/canonical";
import { badRequest } from "../errors.js";
import { assertLaneId, assertSeq, assertStreamIdBytes } from "./assert.js";
import { CHUNK_ENVELOPE_TYPE, CHUNK_TAG_BYTES } from "./cipher.js";
import { STREAM_ID_BYTES } from "./stream-id.js";

/** `type || streamId(16) || u32be laneId || u64be seq`: the chunk envelope's associated data. */
export const CHUNK_HEADER_BYTES = 29;
/** Plaintext of a chunk: `u64be file offset || data`. */
export const CHUNK_OFFSET_BYTES = 8;

/** `type || streamId(16) || u32be laneId || u64be seq`, the first 29 bytes of an envelope. */
export interface ChunkHeader {
  streamId: Uint8Array;
  laneId: number;
  seq: bigint;
}

/** Bytes an envelope adds to its data: header, file offset and AEAD tag (53). */
export const CHUNK_OVERHEAD_BYTES = CHUNK_HEADER_BYTES + CHUNK_OFFSET_BYTES + CHUNK_TAG_BYTES;

const LANE_AT = 1 + STREAM_ID_BYTES;
const SEQ_AT = LANE_AT + 4;

export function encodeChunkHeader(
  header: ChunkHeader,
  type: number = CHUNK_ENVELOPE_TYPE,
): Uint8Array {
  const bytes = new Uint8Array(CHUNK_HEADER_BYTES);
  writeChunkHeader(bytes, header, type);
  return bytes;
}

/**
 * Writes the header into the first 29 bytes of `target` (an envelope being built), led by the
 * envelope type of the stream's cipher.
 */
export function writeChunkHeader(target: Uint8Array, header: ChunkHeader, type: number): void {
  const { streamId, laneId, seq } = header;
  assertStreamIdBytes("streamId", streamId);
  assertLaneId("laneId", laneId);
  assertSeq("seq", seq);
  const view = new DataView(target.buffer, target.byteOffset, CHUNK_HEADER_BYTES);
  view.setUint8(0, type);
  target.set(streamId, 1);
  view.setUint32(LANE_AT, laneId);
  view.setBigUint64(SEQ_AT, seq);
}

/**
 * The header of an untrusted envelope, checked before any decryption: anything but the
 * documented layout (the stream's type byte, room for the offset and tag, seq from 1) is a 400.
 */
export function decodeChunkHeader(
  envelope: Uint8Array,
  type: number = CHUNK_ENVELOPE_TYPE,
): ChunkHeader {
  assertBytes("envelope", envelope);
  if (envelope.length > 0 && envelope[0] !== type) {
    throw badRequest(
      `chunk envelope starts with 0x${hexByte(envelope[0] as number)}, not 0x${hexByte(type)}`,
    );
  }
  if (envelope.length < CHUNK_OVERHEAD_BYTES) {
    throw badRequest(
      `chunk envelope is ${envelope.length} bytes, shorter than its ${CHUNK_OVERHEAD_BYTES} bytes of header, offset and tag`,
    );
  }
  const view = new DataView(envelope.buffer, envelope.byteOffset, CHUNK_HEADER_BYTES);
  const seq = view.getBigUint64(SEQ_AT);
  if (seq === 0n) throw badRequest("chunk seq is 0; seqs start at 1");
  return {
    streamId: envelope.slice(1, LANE_AT),
    laneId: view.getUint32(LANE_AT),
    seq,
  };
}

/** The AEAD nonce `u32be(laneId) || u64be(seq)` is the header's last 12 bytes, as a view. */
export function chunkNonce(header: Uint8Array): Uint8Array {
  return header.subarray(LANE_AT, CHUNK_HEADER_BYTES);
}

const hexByte = (byte: number) => byte.toString(16).padStart(2, "0");
