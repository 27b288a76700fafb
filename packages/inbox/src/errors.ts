import { SvcError } from "@svc/protocol";

export type InboxErrorCode =
  | "SVC_NOT_REGISTERED"
  | "SVC_WRONG_KEY"
  | "SVC_QUOTA_EXCEEDED"
  | "SVC_BLOB_NOT_FOUND"
  | "SVC_BAD_REQUEST";

/** The only error the inbox store throws for a request it refuses. */
export class InboxError extends SvcError {
  override name = "InboxError";
  declare readonly code: InboxErrorCode;

  /** Quota refusals carry the whole seconds (>= 1) until the oldest queued blob expires. */
  constructor(code: InboxErrorCode, message: string, retryAfterSeconds?: number) {
    super(code, message, retryAfterSeconds === undefined ? {} : { retryAfterSeconds });
  }
}
