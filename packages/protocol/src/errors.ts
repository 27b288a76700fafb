import { CodedError } from "@svc/canonical";

/**
 * Every `code` an ErrorResponse can carry, with the one HTTP status it is answered with. The
 * server's error handler and the client read statuses from here only.
 */
export const ERROR_STATUS = {
  SVC_BAD_REQUEST: 400,
  SVC_INVALID_ADDRESS: 400,
  SVC_INVALID_KEY: 400,
  SVC_INVALID_SIGNED_PREKEY: 400,
  SVC_INVALID_KEM_PREKEY: 400,
  SVC_TOO_MANY_WATCHED: 400,
  SVC_INVALID_DEVICE_LIST: 400,
  SVC_INVALID_PUSH_SUBSCRIPTION: 400,
  SVC_PUSH_ENDPOINT_REFUSED: 400,
  SVC_BAD_SIGNATURE: 401,
  SVC_STALE_SIGNATURE: 401,
  SVC_IDENTITY_MISMATCH: 401,
  SVC_WRONG_KEY: 401,
  SVC_UNAUTHORIZED: 401,
  SVC_NOT_REGISTERED: 404,
  SVC_NOT_FOUND: 404,
  SVC_NO_DEVICE_LIST: 404,
  SVC_STH_NOT_FOUND: 404,
  SVC_BLOB_NOT_FOUND: 404,
  SVC_STREAM_NOT_FOUND: 404,
  SVC_FEATURE_DISABLED: 404,
  SVC_MSGID_MISMATCH: 409,
  SVC_REPLAY: 409,
  SVC_OUT_OF_ORDER: 409,
  SVC_INVALID_TRANSITION: 409,
  SVC_DEVICE_LIST_CONFLICT: 409,
  SVC_DEVICE_LIST_CHANGED: 409,
  SVC_TOO_MANY_SUBSCRIPTIONS: 409,
  SVC_TOO_LARGE: 413,
  SVC_RATE_LIMITED: 429,
  SVC_QUOTA_EXCEEDED: 429,
  SVC_TOO_MANY_STREAMS: 429,
  SVC_INTERNAL: 500,
  SVC_UNAVAILABLE: 503,
  SVC_INSUFFICIENT_STORAGE: 507,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

const NAMES: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  404: "NotFound",
  409: "Conflict",
  413: "PayloadTooLarge",
  429: "TooManyRequests",
  500: "InternalError",
  503: "Unavailable",
  507: "InsufficientStorage",
};

/** The `name` of an ErrorResponse answered with `status`. */
export function errorName(status: number): string {
  return NAMES[status] ?? "Error";
}

export interface SvcErrorOptions {
  cause?: unknown;
  /** Members of the error body beside name, code and message (e.g. `lastSeqAcked`, `ktProof`). */
  extra?: Record<string, unknown>;
  /** Sent as `Retry-After` (whole seconds) with a 429. */
  retryAfterSeconds?: number;
  /** Other response headers the refusal needs (e.g. `WWW-Authenticate`). */
  headers?: Record<string, string>;
  /** Overrides the code's status; only SVC_STALE_SIGNATURE on inbox routes needs it (409). */
  status?: number;
}

/** The wire body of every error. */
export interface ErrorResponse {
  name: string;
  code: ErrorCode;
  message: string;
  [member: string]: unknown;
}

/**
 * A refusal that the server answers with an ErrorResponse and the client throws when it reads
 * one. Domain packages extend it with their own narrower `code` unions.
 */
export class SvcError extends CodedError<ErrorCode> {
  override name = "SvcError";
  readonly status: number;
  readonly extra: Readonly<Record<string, unknown>>;
  readonly retryAfterSeconds: number | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message: string, options: SvcErrorOptions = {}) {
    super(code, message, options);
    this.status = options.status ?? ERROR_STATUS[code];
    this.extra = options.extra ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers ?? {};
  }

  /** The ErrorResponse body. */
  body(): ErrorResponse {
    return { name: errorName(this.status), code: this.code, message: this.message, ...this.extra };
  }
}

export const badRequest = (message: string, code: ErrorCode = "SVC_BAD_REQUEST") =>
  new SvcError(code, message);

/**
 * A signedAt outside the +-5 minute window: SVC_STALE_SIGNATURE is the one code whose status
 * depends on the route, 409 on inbox routes and 401 everywhere else.
 */
export function staleSignature(routes: "inbox" | "other"): SvcError {
  return new SvcError("SVC_STALE_SIGNATURE", "signedAt is outside the +-5 minute window", {
    status: routes === "inbox" ? 409 : 401,
  });
}
