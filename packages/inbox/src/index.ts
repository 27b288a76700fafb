export { CursorCodec } from "./cursor.js";
export type {
  DepositInput,
  DepositNotice,
  DepositPolicy,
  DepositResult,
  StoredDeposit,
} from "./deposit.js";
export type { InboxErrorCode } from "./errors.js";
export { InboxError } from "./errors.js";
export {
  clampExpiry,
  MAX_RETRY_AFTER_SECONDS,
  retryAfterSeconds,
  senderName,
  type TtlBounds,
} from "./policy.js";
export { type PrunerOptions, startPruner } from "./pruner.js";
export { inboxBlobs, inboxMigrations, inboxRegistrations } from "./schema.js";
export {
  type CommittedDeposit,
  type DepositListener,
  InboxStore,
  type InboxStoreOptions,
  MAX_BACKLOG_LIMIT,
  MAX_FETCH_LIMIT,
  PRUNE_BATCH,
} from "./store.js";
