import { SvcError } from "@svc/protocol";

export type PrekeyErrorCode =
  | "SVC_IDENTITY_MISMATCH"
  | "SVC_INVALID_SIGNED_PREKEY"
  | "SVC_INVALID_KEM_PREKEY"
  | "SVC_NOT_REGISTERED"
  | "SVC_BAD_REQUEST";

/** The only error this package throws for a request that breaks a prekey rule. */
export class PrekeyError extends SvcError {
  override name = "PrekeyError";
  declare readonly code: PrekeyErrorCode;

  constructor(code: PrekeyErrorCode, message: string) {
    super(code, message);
  }
}
