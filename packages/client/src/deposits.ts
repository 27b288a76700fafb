import {
  type DepositBatchItem,
  type DeviceListVersion,
  LatestDeviceListVersions,
  SvcError,
} from "@svc/protocol";
import * as v from "valibot";
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

/**
 * A server that predates `deviceLists`: its batch body is a strict object, so it answers 400 to
 * the member, naming it and the one member it allows.
 */
export function versionsRefused(error: unknown): error is SvcError {
  return (
    error instanceof SvcError &&
    error.status === 400 &&
    error.code === "SVC_BAD_REQUEST" &&
    error.message.startsWith("deviceLists") &&
    error.message.includes("only deposits is allowed")
  );
}

/** A batch refused because a device list it named is not the latest (nothing stored). */
export function listsChanged(error: unknown): error is SvcError {
  return error instanceof SvcError && error.code === "SVC_DEVICE_LIST_CHANGED";
}

/**
 * The accounts of `named` whose latest version, as the refusal gives it, is another one. The
 * server said so; what their lists are now is read and verified, not believed.
 */
export function changedAccounts(named: DeviceListVersion[], error: SvcError): string[] {
  const latest = v.safeParse(LatestDeviceListVersions, error.extra.deviceLists);
  if (!latest.success) {
    throw new ClientError("BAD_RESPONSE", "the server refused the batch without latest versions");
  }
  const answered = new Map(latest.output.map((entry) => [entry.account, entry.version]));
  return named
    .filter((entry) => answered.get(entry.account) !== entry.version)
    .map((entry) => entry.account);
}
