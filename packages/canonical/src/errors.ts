export type CanonicalErrorCode =
  | "INVALID_BASE64"
  | "INVALID_HEX"
  | "INVALID_ADDRESS"
  | "INVALID_NUMBER"
  | "RESERVED_MEMBER"
  | "INVALID_JSON_VALUE";

/** The only error this package throws for untrusted input. */
export class CanonicalError extends Error {
  readonly code: CanonicalErrorCode;

  constructor(code: CanonicalErrorCode, message: string) {
    super(message);
    this.name = "CanonicalError";
    this.code = code;
  }
}
