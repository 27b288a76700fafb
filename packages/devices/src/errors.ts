import { SvcError } from "@svc/protocol";

/** The only error this package throws for a list write the server refuses. */
export class DevicesError extends SvcError {
  override name = "DevicesError";
}

/** The list is not the version after the stored latest; carries that version (0: no list). */
export function conflict(currentVersion: number, message: string): DevicesError {
  return new DevicesError("SVC_DEVICE_LIST_CONFLICT", message, { extra: { currentVersion } });
}

export function invalid(message: string): DevicesError {
  return new DevicesError("SVC_INVALID_DEVICE_LIST", message);
}
