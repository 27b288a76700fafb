import { SvcError } from "@svc/protocol";
import { ClientError } from "./errors.js";

/** A 4xx other than 429: the server will not take the request, retrying cannot help. */
export function isRefusal(error: unknown): boolean {
  return error instanceof SvcError && error.status < 500 && error.status !== 429;
}

/** What a server being away (or the store busy a while) looks like: worth retrying later. */
export function isTransient(error: unknown): boolean {
  if (error instanceof SvcError) return !isRefusal(error);
  return (
    error instanceof ClientError && ["NETWORK", "TIMEOUT", "STORE_LOCKED"].includes(error.code)
  );
}
