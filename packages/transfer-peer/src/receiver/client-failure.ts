import { ClientError, type ClientErrorCode } from "@svc/client";
import { SvcError } from "@svc/protocol";

/** Failures that are the peer's doing: its envelope or its directory entry cannot be trusted. */
const PEER_FAULTS: ReadonlySet<ClientErrorCode> = new Set([
  "DECRYPT_FAILED",
  "SENDER_MISMATCH",
  "KT_VERIFICATION_FAILED",
]);
/** Failures of the way to the directory, which a later request may not meet. */
const UNAVAILABLE: ReadonlySet<ClientErrorCode> = new Set([
  "NETWORK",
  "TIMEOUT",
  "BAD_RESPONSE",
  "KT_UNAVAILABLE",
]);

/**
 * What a failure of the receiving client (opening an envelope, fetching a sender's keys) is
 * answered with: `refusal` when the peer is at fault (a bad envelope, an address the directory
 * refuses), 503 when the directory could not be asked, anything else as it is.
 */
export function clientFailure(error: unknown, refusal: (reason: string) => SvcError): unknown {
  if (error instanceof ClientError) {
    if (PEER_FAULTS.has(error.code)) return refusal(error.message);
    if (UNAVAILABLE.has(error.code)) return unavailable(error);
    return error;
  }
  if (error instanceof SvcError) {
    return error.status === 429 || error.status >= 500
      ? unavailable(error)
      : refusal(error.message);
  }
  return error;
}

function unavailable(cause: Error): SvcError {
  return new SvcError("SVC_UNAVAILABLE", "the key directory cannot be reached", { cause });
}
