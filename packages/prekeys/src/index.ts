export { type LoggedIdentity, readCurrentIdentities } from "./current-identities.js";
export {
  createPrekeyDirectory,
  type PrekeyDirectory,
  type PrekeyDirectoryOptions,
} from "./directory.js";
export { PrekeyError, type PrekeyErrorCode } from "./errors.js";
export { requireSameIdentity, verifyKemPreKey, verifySignedPreKey } from "./identity-rules.js";
export { identities, oneTimeKemPrekeys, oneTimePrekeys, prekeysMigrations } from "./schema.js";
export type {
  Identity,
  KemPreKey,
  OneTimePreKey,
  PreKeyBundle,
  PreKeyUpload,
  PrekeyCounts,
  RegisterResult,
  Registration,
  SignedPreKey,
  UploadResult,
} from "./types.js";
