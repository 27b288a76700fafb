export {
  createPrekeyDirectory,
  type PrekeyDirectory,
  type PrekeyDirectoryOptions,
} from "./directory.js";
export { PrekeyError, type PrekeyErrorCode } from "./errors.js";
export { requireSameIdentity, verifySignedPreKey } from "./identity-rules.js";
export { identities, oneTimePrekeys, prekeysMigrations } from "./schema.js";
export type {
  Identity,
  OneTimePreKey,
  PreKeyBundle,
  RegisterResult,
  Registration,
  SignedPreKey,
} from "./types.js";
