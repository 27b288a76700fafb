export * from "./schema/index.js";
export {
  type Database,
  openStorage,
  type Schema,
  type Storage,
  type StorageKind,
  type StorageOptions,
} from "./storage.js";
