export { type BatcherOptions, createBatcher } from "./batcher.js";
export { executeRows, preparedRows } from "./rows.js";
export * from "./schema/index.js";
export {
  type Database,
  openStorage,
  type Schema,
  type Storage,
  type StorageKind,
  type StorageOptions,
} from "./storage.js";
