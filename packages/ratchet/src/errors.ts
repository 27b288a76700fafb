import { CodedError } from "@svc/canonical";

/** Stable codes of {@link RatchetError}. */
export type RatchetErrorCode =
  /** An envelope is not the documented layout (type byte, length, flag or id range). */
  | "RATCHET_MALFORMED_ENVELOPE"
  /** The envelope's kind byte names a form or version this implementation does not know. */
  | "RATCHET_UNSUPPORTED_VERSION"
  /** The bundle's signed prekey signature does not verify with its identity signing key. */
  | "RATCHET_BAD_SIGNATURE"
  /** A public key is of small order (its Diffie-Hellman output would be all zeros). */
  | "RATCHET_INVALID_KEY"
  /** A first message names a signed or one-time prekey the store does not hold (or no longer). */
  | "RATCHET_UNKNOWN_PREKEY"
  /** A first message that does not belong to this session (other sender, base key or prekeys). */
  | "RATCHET_SESSION_MISMATCH"
  /** The message key of this envelope was used before and deleted (a replay or a duplicate). */
  | "RATCHET_REPLAY"
  /** Decrypting would skip more message keys than MAX_SKIP in one chain. */
  | "RATCHET_TOO_MANY_SKIPPED"
  /** Authentication failed: a tampered envelope, a wrong session or a key dropped as too old. */
  | "RATCHET_DECRYPT_FAILED"
  /** The sending chain has reached 2^32 - 1 messages; a new session is needed. */
  | "RATCHET_CHAIN_EXHAUSTED"
  /** Serialized session state is not the documented encoding. */
  | "RATCHET_MALFORMED_STATE";

/** The one error class of @svc/ratchet; untrusted input never throws anything else. */
export class RatchetError extends CodedError<RatchetErrorCode> {
  override readonly name = "RatchetError";

  constructor(code: RatchetErrorCode, message: string) {
    super(code, message);
  }
}
