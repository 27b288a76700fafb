/**
 * `@svc/protocol/transfer`: the transfer wire (docs/protocol.md §12, D9) in one portable module:
 * stream ids, the route schemas and headers, the stream rules, the 0x11 and 0x12 chunk envelopes
 * and their ciphers, the signed chunk and state messages, control messages, the lane plan and cursors.
 */
export {
  CHUNK_DATA_AT,
  type ChunkToSeal,
  type OpenedChunk,
  openChunk,
  sealChunk,
} from "./chunk-envelope.js";
export {
  CHUNK_HEADER_BYTES,
  CHUNK_OFFSET_BYTES,
  CHUNK_OVERHEAD_BYTES,
  type ChunkHeader,
  decodeChunkHeader,
  encodeChunkHeader,
} from "./chunk-header.js";
export {
  AES_GCM_CHUNK_ENVELOPE_TYPE,
  CHUNK_ENVELOPE_TYPE,
  CHUNK_TAG_BYTES,
  type ChunkCipher,
  nobleAesGcmChunkCipher,
  nobleChunkCipher,
} from "./cipher.js";
export { decodeControlMessage, encodeControlMessage } from "./control-message.js";
export { LaneCursors } from "./lane-cursors.js";
export { type PlannedChunk, planStream, type StreamPlan, type StreamShape } from "./lane-plan.js";
export { checkChunkSeq, checkForVersion, nextStreamStatus, requireActive } from "./rules.js";
export * from "./schemas.js";
export {
  chunkSignedMessage,
  type SignedChunkRequest,
  sha256Hex,
  stateSignedMessage,
} from "./signed-messages.js";
export {
  encodeStreamId,
  isStreamId,
  newStreamId,
  STREAM_ID_BYTES,
  STREAM_ID_PATTERN,
} from "./stream-id.js";
