export { checkChunkSeq, nextStreamStatus, requireActive } from "@svc/protocol";
export {
  CHUNK_DATA_AT,
  type ChunkToSeal,
  type OpenedChunk,
  openChunk,
  sealChunk,
} from "./chunk-envelope.js";
export {
  CHUNK_OVERHEAD_BYTES,
  type ChunkHeader,
  decodeChunkHeader,
  encodeChunkHeader,
} from "./chunk-header.js";
export { CHUNK_TAG_BYTES, type ChunkCipher, nobleChunkCipher } from "./cipher.js";
export { decodeControlMessage, encodeControlMessage } from "./control-message.js";
export { LaneCursors } from "./lane-cursors.js";
export { type PlannedChunk, planStream, type StreamPlan, type StreamShape } from "./lane-plan.js";
export {
  chunkSignedMessage,
  type SignedChunkRequest,
  sha256Hex,
  stateSignedMessage,
} from "./signed-messages.js";
