export {
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_QUEUED,
  WakeUpDispatcher,
  type WakeUpDispatcherOptions,
  type WakeUpOutcome,
} from "./dispatcher.js";
export { PushStoreError } from "./errors.js";
export { pushMigrations, pushSubscriptions, WAKE_DUE_FUNCTION } from "./schema.js";
export {
  type Claim,
  createPushSubscriptions,
  type NewSubscription,
  type PushSubscriptions,
  type StoredSubscription,
} from "./subscriptions.js";
export { rememberWakeDue, type WakeDueMemory } from "./wake-due-memory.js";
export { wakeUpPlaintext } from "./wake-up.js";
