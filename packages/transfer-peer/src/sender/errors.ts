import { CodedError } from "@svc/canonical";

/** Stable codes of {@link TransferError}: why a send did not complete. */
export type TransferErrorCode =
  /** Resuming a stream the receiver holds no state for: send again without `resume`. */
  | "STREAM_NOT_FOUND"
  /** The stream is aborted, or stopped being active under a running send. */
  | "STREAM_CLOSED"
  /** The source is not what the stream was started with (other SHA-256, shorter file). */
  | "SOURCE_CHANGED"
  /** The receiver refused a request with a 4xx that sending it again cannot change. */
  | "REFUSED"
  /** Network errors, 5xx or 429 outlasted every attempt. */
  | "UNAVAILABLE"
  /** The receiver answered something the protocol does not allow. */
  | "BAD_RESPONSE"
  /** The receiver at `peer` serves another address than `to` (its /v1/transfer/health says). */
  | "WRONG_RECEIVER"
  /** `transfer.abort()`: the receiver was told to drop the stream. */
  | "ABORTED";

/** The one error class of the sender; a receiver's ErrorResponse is its `cause` (an SvcError). */
export class TransferError extends CodedError<TransferErrorCode> {
  override readonly name = "TransferError";
}
