export { nodeChunkCipher } from "./cipher/node-chunk-cipher.js";
export { mountTransferReceiver } from "./receiver/mount.js";
export type { ReceivedFile, TransferReceiverOptions } from "./receiver/options.js";
export { transferMigrations } from "./schema.js";
export {
  type DatabaseTransferStoreOptions,
  databaseTransferStore,
} from "./store/database-store.js";
export { type FileTransferStoreOptions, fileTransferStore } from "./store/file-store.js";
export type { StreamRecord, TransferStore } from "./store/transfer-store.js";
