export type InboxErrorCode =
  | "SVC_NOT_REGISTERED"
  | "SVC_WRONG_KEY"
  | "SVC_QUOTA_EXCEEDED"
  | "SVC_BLOB_NOT_FOUND"
  | "SVC_BAD_REQUEST";

/** The only error the inbox store throws for a request it refuses. */
export class InboxError extends Error {
  readonly code: InboxErrorCode;
  /** Quota refusals: whole seconds (>= 1) until the oldest queued blob expires. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: InboxErrorCode, message: string, retryAfterSeconds?: number) {
    super(message);
    this.name = "InboxError";
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
