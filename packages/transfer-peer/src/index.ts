export { nodeChunkCipher } from "./cipher/node-chunk-cipher.js";
export { transferMigrations } from "./schema.js";
export {
  type DatabaseTransferStoreOptions,
  databaseTransferStore,
} from "./store/database-store.js";
export { type FileTransferStoreOptions, fileTransferStore } from "./store/file-store.js";
export type { StreamRecord, TransferStore } from "./store/transfer-store.js";
