export { defaultChunkCipher } from "./cipher/default-chunk-cipher.js";
export { nodeAesGcmChunkCipher, nodeChunkCipher } from "./cipher/node-chunk-cipher.js";
export { sodiumChunkCipher } from "./cipher/sodium-chunk-cipher.js";
export { type MountedReceiver, mountTransferReceiver } from "./receiver/mount.js";
export {
  DEFAULT_MAX_RESERVED_BYTES,
  DEFAULT_MAX_RESERVED_BYTES_PER_SENDER,
  DEFAULT_MAX_STREAM_BYTES,
  DEFAULT_MAX_STREAMS_PER_SENDER,
  DEFAULT_PARTIAL_TTL_MS,
  type ReceivedFile,
  type TransferReceiverOptions,
} from "./receiver/options.js";
export { transferMigrations } from "./schema.js";
export { TransferError, type TransferErrorCode } from "./sender/errors.js";
export { LANE_DEPTH } from "./sender/lane.js";
export {
  DEFAULT_CHUNK_BYTES,
  DEFAULT_LANES,
  MAX_CHUNK_BYTES,
  MAX_LANES,
  type ResumeInfo,
  type SendOptions,
} from "./sender/options.js";
export type { Progress } from "./sender/progress.js";
export {
  DEFAULT_RETRY,
  type RecoveryNotice,
  type RetryNotice,
  type RetryPolicy,
} from "./sender/retry.js";
export { SendJournal, type SendRoute } from "./sender/send-journal.js";
export type { SendSource } from "./sender/source.js";
export type { TransferEvents, TransferResult } from "./sender/stream-sender.js";
export { sendFile, Transfer } from "./sender/transfer.js";
export type { ReceiverServerConfig, StoreKind } from "./server/config.js";
export { loadTransferConfig } from "./server/load-config.js";
export {
  type ReceiverHooks,
  type RunningReceiver,
  startTransferReceiver,
} from "./server/receiver-server.js";
export {
  type DatabaseTransferStoreOptions,
  databaseTransferStore,
} from "./store/database-store.js";
export { type FileTransferStoreOptions, fileTransferStore } from "./store/file-store.js";
export type { StreamRecord, TransferStore } from "./store/transfer-store.js";
