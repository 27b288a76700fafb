export { bytea } from "./bytea.js";
export { type MoveRefusalCode, MoveRefused } from "./errors.js";
export type { LegacyTag } from "./legacy.js";
export type { PackageMigrations } from "./migrations.js";
export { type MoveOptions, type MoveReport, moveEmbeddedDatabase } from "./move.js";
export { executePreparedRows, executeRows, plainBytes, preparedRows } from "./rows.js";
export {
  type Database,
  openStorage,
  type Storage,
  type StorageKind,
  type StorageOptions,
} from "./storage.js";
export { isDatabaseUnreachable } from "./unreachable.js";
