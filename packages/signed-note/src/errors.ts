import { CodedError } from "@svc/canonical";

export type SignedNoteErrorCode =
  /** A note that is not well formed: size, UTF-8, control characters, layout or a signature line. */
  | "NOTE_MALFORMED"
  /** More than 100 signature lines. */
  | "NOTE_TOO_MANY_SIGNATURES"
  /** A signature by a trusted key (same name and key ID) that does not verify. */
  | "NOTE_INVALID_SIGNATURE"
  /** A well-formed note with no signature by any of the given keys. */
  | "NOTE_UNVERIFIED"
  /** Two different trusted keys with the same name and key ID both match a signature line. */
  | "NOTE_AMBIGUOUS_KEY"
  /** A verifier or signer key string that does not parse, or whose key ID does not match. */
  | "KEY_MALFORMED"
  /** A checkpoint body that is not tlog-checkpoint's layout. */
  | "CHECKPOINT_MALFORMED";

/** The only error this package throws. */
export class SignedNoteError extends CodedError<SignedNoteErrorCode> {
  override readonly name = "SignedNoteError";

  constructor(code: SignedNoteErrorCode, message: string) {
    super(code, message);
  }
}
