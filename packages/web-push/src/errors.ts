import { CodedError } from "@svc/canonical";

export type PushErrorCode =
  | "INVALID_VAPID_KEY"
  | "INVALID_SUBSCRIPTION"
  | "ENDPOINT_REFUSED"
  | "PAYLOAD_TOO_LARGE";

/** The only error this package throws; `sendWebPush` throws none and answers an outcome. */
export class PushError extends CodedError<PushErrorCode> {
  override readonly name = "PushError";

  constructor(code: PushErrorCode, message: string) {
    super(code, message);
  }
}
