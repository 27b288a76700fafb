import { CodedError } from "@svc/canonical";

/** Stable codes of {@link WitnessError}. */
export type WitnessErrorCode =
  /** An add-checkpoint body that is not the protocol's layout (the witness answers 400). */
  | "WITNESS_BAD_REQUEST"
  /** The witness could not be reached, or did not answer in time. */
  | "WITNESS_UNREACHABLE"
  /** A witness's answer that is not the protocol's: a 200 or 409 body of the wrong shape. */
  | "WITNESS_BAD_RESPONSE"
  /** The witness's key file is unreadable, malformed, for another name, or readable by others. */
  | "WITNESS_KEY_FILE"
  /** Another live process holds the state directory's lock. */
  | "WITNESS_STATE_LOCKED"
  /** A state file that does not hold what this package writes. */
  | "WITNESS_STATE_CORRUPT";

/** The one error class of @svc/kt-witness. */
export class WitnessError extends CodedError<WitnessErrorCode> {
  override readonly name = "WitnessError";
}
