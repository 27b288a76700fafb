import { SvcError } from "@svc/protocol";

/** Codes of {@link KtLogError}. */
export type KtLogErrorCode =
  /** No STH at the requested tree size. */
  | "SVC_STH_NOT_FOUND"
  /** Tree sizes or a leaf range the log cannot answer (from > to, past the latest size). */
  | "SVC_BAD_REQUEST"
  /** The database's log was created with another operator key. */
  | "SVC_INTERNAL";

/** The one error of @svc/kt-log. */
export class KtLogError extends SvcError {
  override name = "KtLogError";
  declare readonly code: KtLogErrorCode;

  constructor(code: KtLogErrorCode, message: string) {
    super(code, message);
  }
}
