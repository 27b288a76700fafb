export { decodeBase64, encodeBase64 } from "./base64.js";
export { type Checkpoint, formatCheckpoint, parseCheckpoint } from "./checkpoint.js";
export { cosign, cosignedMessage, MAX_TIMESTAMP } from "./cosignature.js";
export { SignedNoteError, type SignedNoteErrorCode } from "./errors.js";
export {
  COSIGNATURE_V1_TYPE,
  ED25519_TYPE,
  formatKeyId,
  formatSignerKey,
  formatVerifierKey,
  isValidKeyName,
  type KeyType,
  keyId,
  parseSignerKey,
  parseVerifierKey,
  type Signer,
  type Verifier,
} from "./keys.js";
export {
  type Ed25519Verify,
  MAX_NOTE_BYTES,
  MAX_SIGNATURES,
  type NoteSignatureLine,
  type OpenedNote,
  openNote,
  openNoteAsync,
  type ParsedNote,
  parseNote,
  type SignedMessage,
  signedMessage,
  signNote,
  type UnknownSignature,
  type VerifiedSignature,
} from "./note.js";
