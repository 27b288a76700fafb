import { type DepositBatchItem, SvcError } from "@svc/protocol";
import { ClientError } from "./errors.js";

/**
 * The msgIds of a batch's deposits when every one was stored (or already was); else the refusal
 * of the first that was not, thrown as the SvcError its own route would have answered.
 */
export function acceptedBatch(msgIds: string[], results: DepositBatchItem[]): string[] {
  if (results.length !== msgIds.length) {
    throw new ClientError(
      "BAD_RESPONSE",
      `the server answered ${results.length} results for ${msgIds.length} deposits`,
    );
  }
  for (const result of results) {
    if (result.status !== 200 && "code" in result) {
      throw new SvcError(result.code, result.message, { status: result.status });
    }
  }
  return msgIds;
}

/**
 * A batch the server did not take as a whole but would take one by one: a server that predates
 * the batch route (404 SVC_NOT_FOUND), or one whose blob limit the batch's sum exceeds (413).
 */
export function batchRefused(error: unknown): error is SvcError {
  return (
    error instanceof SvcError &&
    ((error.status === 404 && error.code === "SVC_NOT_FOUND") || error.status === 413)
  );
}
