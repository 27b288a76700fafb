export {
  createPrekeyDirectory,
  type PrekeyDirectory,
  type PrekeyDirectoryOptions,
} from "./directory.js";
export { PrekeyError, type PrekeyErrorCode } from "./errors.js";
export { requireSameIdentity, verifySignedPreKey } from "./identity-rules.js";
export { MAX_PREKEYS_PER_REQUEST, MAX_QUEUED_PREKEYS, planAppend } from "./queue-rules.js";
export { identities, oneTimePrekeys, prekeysMigrations } from "./schema.js";
export type {
  Identity,
  OneTimePreKey,
  PreKeyBundle,
  RegisterResult,
  Registration,
  SignedPreKey,
} from "./types.js";
