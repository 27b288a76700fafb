import { assertBytes } from "@svc/canonical";
import { badRequest } from "../errors.js";
import { assertInteger, assertStreamKey } from "./assert.js";
import {
  CHUNK_HEADER_BYTES,
  CHUNK_OFFSET_BYTES,
  CHUNK_OVERHEAD_BYTES,
  type ChunkHeader,
  chunkNonce,
  decodeChunkHeader,
  writeChunkHeader,
} from "./chunk-header.js";
import { type ChunkCipher, nobleChunkCipher } from "./cipher.js";

export interface ChunkToSeal extends ChunkHeader {
  /** The stream's 32-byte key for `cipher`. */
  key: Uint8Array;
  /** Where `data` starts in the file. */
  offset: number;
  data: Uint8Array;
}

export interface OpenedChunk {
  header: ChunkHeader;
  offset: number;
  /** A view into the decrypted plaintext, after its 8-byte offset. */
  data: Uint8Array;
}

const PLAINTEXT_AT = CHUNK_HEADER_BYTES;
const DATA_AT = CHUNK_HEADER_BYTES + CHUNK_OFFSET_BYTES;

/**
 * `header || AEAD(u64be(offset) || data)`, with the header (led by the cipher's envelope type)
 * as associated data. The data is
 * copied once, into the envelope, and sealed there in place. With `into` (at least
 * CHUNK_OVERHEAD_BYTES + data.length bytes) the envelope is built there and returned as a view,
 * so that a sender can reuse its buffers instead of allocating one per chunk; data that already
 * lies where the envelope holds it (read straight into `into`) is not copied.
 */
export function sealChunk(
  chunk: ChunkToSeal,
  cipher: ChunkCipher = nobleChunkCipher,
  into?: Uint8Array,
): Uint8Array {
  const { key, offset, data } = chunk;
  assertStreamKey("key", key);
  assertInteger("offset", offset);
  assertBytes("data", data);
  const size = CHUNK_OVERHEAD_BYTES + data.length;
  if (into !== undefined) {
    assertBytes("into", into);
    if (into.length < size) {
      throw new RangeError(`into holds ${into.length} bytes, fewer than the envelope's ${size}`);
    }
  }
  const envelope = into ? into.subarray(0, size) : new Uint8Array(size);
  writeChunkHeader(envelope, chunk, cipher.envelopeType);
  new DataView(envelope.buffer, envelope.byteOffset).setBigUint64(PLAINTEXT_AT, BigInt(offset));
  const inPlace =
    data.buffer === envelope.buffer && data.byteOffset === envelope.byteOffset + DATA_AT;
  if (!inPlace) envelope.set(data, DATA_AT);
  const header = envelope.subarray(0, CHUNK_HEADER_BYTES);
  const sealedPart = envelope.subarray(PLAINTEXT_AT);
  const plaintext = envelope.subarray(PLAINTEXT_AT, DATA_AT + data.length);
  const sealed = cipher.seal(key, chunkNonce(header), header, plaintext, sealedPart);
  // A cipher that returns a new array instead of writing into the envelope still yields one.
  if (sealed !== sealedPart) sealedPart.set(sealed);
  return envelope;
}

/** Where an envelope holds its chunk's data (before sealing): after the header and offset. */
export const CHUNK_DATA_AT = DATA_AT;

/**
 * Decodes and decrypts an untrusted envelope. A malformed header (its type byte not `cipher`'s
 * included), a failed authentication or an offset past 2^53 - 1 is a 400; the header's lane and
 * seq are for the caller to compare with the request's.
 */
export function openChunk(
  envelope: Uint8Array,
  key: Uint8Array,
  cipher: ChunkCipher = nobleChunkCipher,
): OpenedChunk {
  assertStreamKey("key", key);
  const header = decodeChunkHeader(envelope, cipher.envelopeType);
  const ad = envelope.subarray(0, CHUNK_HEADER_BYTES);
  const plaintext = cipher.open(key, chunkNonce(ad), ad, envelope.subarray(PLAINTEXT_AT));
  if (plaintext === undefined) throw badRequest("chunk does not authenticate");
  const view = new DataView(plaintext.buffer, plaintext.byteOffset, CHUNK_OFFSET_BYTES);
  const offset = view.getBigUint64(0);
  if (offset > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw badRequest(`chunk offset ${offset} is above 2^53 - 1`);
  }
  return { header, offset: Number(offset), data: plaintext.subarray(CHUNK_OFFSET_BYTES) };
}
