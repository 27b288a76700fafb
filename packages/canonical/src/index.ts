export { isValidAddress, normalizeAddress } from "./address.js";
export { decodeBase64, decodeBase64Url, encodeBase64, encodeBase64Url } from "./base64.js";
export { assertBytes, concatBytes, equalBytes, isBytes, u64be } from "./bytes.js";
export { CodedError } from "./coded-error.js";
export type { Ed25519KeyPair, Ed25519Verifier } from "./ed25519.js";
export {
  ed25519KeyPairFromSeed,
  ed25519Sign,
  portableEd25519,
  strictEd25519,
  x25519PublicKeyFromSeed,
} from "./ed25519.js";
export { isSmallOrderPoint } from "./ed25519-strict.js";
export type { CanonicalErrorCode } from "./errors.js";
export { CanonicalError } from "./errors.js";
export { isFresh, SIGNED_AT_WINDOW_MS } from "./freshness.js";
export { bytesToHex, hexToBytes } from "./hex.js";
export type { CanonicalizeOptions } from "./jcs.js";
export { canonicalize } from "./jcs.js";
export { KeyedSerial, SerialQueue } from "./serial.js";
