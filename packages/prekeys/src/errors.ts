/** The SVC_ codes a prekey operation can fail with; the server maps each to an HTTP status. */
export type PrekeyErrorCode =
  | "SVC_IDENTITY_MISMATCH"
  | "SVC_INVALID_SIGNED_PREKEY"
  | "SVC_NOT_REGISTERED"
  | "SVC_BAD_REQUEST";

/** The only error this package throws for a request that breaks a prekey rule. */
export class PrekeyError extends Error {
  readonly code: PrekeyErrorCode;

  constructor(code: PrekeyErrorCode, message: string) {
    super(message);
    this.name = "PrekeyError";
    this.code = code;
  }
}
