export type {
  DepositInput,
  DepositNotice,
  DepositPolicy,
  DepositResult,
  DepositWakeCheck,
  StoredDeposit,
} from "./deposit.js";
export type { InboxErrorCode } from "./errors.js";
export { InboxError } from "./errors.js";
export { retryAfterSeconds, type TtlBounds } from "./policy.js";
export { type PrunerOptions, startPruner } from "./pruner.js";
export { inboxBlobs, inboxMigrations, inboxRegistrations } from "./schema.js";
export {
  type CommittedDeposit,
  type DepositListener,
  InboxStore,
  type InboxStoreOptions,
} from "./store.js";
