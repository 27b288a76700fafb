import { CodedError } from "./coded-error.js";

export type CanonicalErrorCode =
  | "INVALID_BASE64"
  | "INVALID_HEX"
  | "INVALID_ADDRESS"
  | "INVALID_NUMBER"
  | "RESERVED_MEMBER"
  | "INVALID_JSON_VALUE";

/** The only error this package throws for untrusted input. */
export class CanonicalError extends CodedError<CanonicalErrorCode> {
  override readonly name = "CanonicalError";

  constructor(code: CanonicalErrorCode, message: string) {
    super(code, message);
  }
}
