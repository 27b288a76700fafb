export { MESSAGE_KIND, PQXDH_PREKEY_MESSAGE_KIND, PREKEY_MESSAGE_KIND } from "./envelope.js";
export { RatchetError, type RatchetErrorCode } from "./errors.js";
export {
  createIdentity,
  createKemPreKey,
  createOneTimePreKey,
  createSignedPreKey,
  type Identity,
  type KemPreKeyPair,
  type OneTimePreKeyPair,
  type RandomOption,
  type SignedPreKeyPair,
} from "./identity.js";
export { MemoryPreKeyStore, type PreKeyStore } from "./prekey-store.js";
export type { RandomBytes } from "./random.js";
export {
  initiateSession,
  respondToFirstMessage,
  Session,
  type SessionOptions,
} from "./session.js";
export { MAX_SKIP, MAX_SKIPPED_AGE, MAX_SKIPPED_KEYS } from "./state.js";
