import type { ContentfulStatusCode } from "hono/utils/http-status";

export const ERROR_CODES = [
  "SVC_BAD_REQUEST",
  "SVC_INVALID_ADDRESS",
  "SVC_INVALID_KEY",
  "SVC_INVALID_SIGNED_PREKEY",
  "SVC_BAD_SIGNATURE",
  "SVC_STALE_SIGNATURE",
  "SVC_IDENTITY_MISMATCH",
  "SVC_WRONG_KEY",
  "SVC_UNAUTHORIZED",
  "SVC_NOT_REGISTERED",
  "SVC_NOT_FOUND",
  "SVC_STH_NOT_FOUND",
  "SVC_BLOB_NOT_FOUND",
  "SVC_STREAM_NOT_FOUND",
  "SVC_MSGID_MISMATCH",
  "SVC_REPLAY",
  "SVC_OUT_OF_ORDER",
  "SVC_INVALID_TRANSITION",
  "SVC_TOO_LARGE",
  "SVC_RATE_LIMITED",
  "SVC_QUOTA_EXCEEDED",
  "SVC_TOO_MANY_WATCHED",
  "SVC_FEATURE_DISABLED",
  "SVC_UNAVAILABLE",
  "SVC_INTERNAL",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

const NAMES: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  404: "NotFound",
  409: "Conflict",
  413: "PayloadTooLarge",
  429: "TooManyRequests",
  500: "InternalError",
  503: "Unavailable",
};

/** The one error the routes throw; `onError` turns it into an ErrorResponse. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ErrorCode,
    message: string,
    /** Extra members of the error body (e.g. `ktProof` on a bundle 404). */
    readonly extra: Record<string, unknown> = {},
    /** Extra response headers (e.g. Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }

  body(): Record<string, unknown> {
    return {
      name: NAMES[this.status] ?? "Error",
      code: this.code,
      message: this.message,
      ...this.extra,
    };
  }
}

export const badRequest = (message: string, code: ErrorCode = "SVC_BAD_REQUEST") =>
  new ApiError(400, code, message);
