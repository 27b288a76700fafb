import { ClientError } from "@svc/client";
import { SvcError } from "@svc/protocol";
import { EXIT } from "./exit.js";
import type { Problem } from "./output.js";

/** An expected failure as the CLI reports it: a stable code, a sentence, an exit status. */
export interface Failure extends Problem {
  exit: number;
}

/**
 * What went wrong, said for the person at the terminal, or undefined for an error no user action
 * explains (a bug), which the caller lets through with its stack.
 */
export function describeFailure(error: unknown, server: string, home: string): Failure | undefined {
  if (error instanceof ClientError) return clientFailure(error, server, home);
  if (error instanceof SvcError) {
    return {
      code: error.code,
      message: `the server refused (${error.status} ${error.code}): ${error.message}`,
      exit: EXIT.failure,
    };
  }
  const system = systemError(error);
  if (system) {
    return {
      code: system.code,
      message: `cannot use the key store in ${home}: ${system.message}`,
      exit: EXIT.failure,
    };
  }
  return undefined;
}

function clientFailure(error: ClientError, server: string, home: string): Failure {
  const failure = (exit: number, message = error.message) => ({ code: error.code, message, exit });
  switch (error.code) {
    case "IDENTITY_EXISTS":
      return failure(
        EXIT.identity,
        `${home}: ${error.message}; svc init never replaces an identity (use another --home)`,
      );
    case "NO_IDENTITY":
      return failure(EXIT.identity, `${home} holds no identity; run svc init --address <address>`);
    case "IDENTITY_CHANGED": {
      const address = error.identityChange?.address ?? "<address>";
      return {
        ...failure(
          EXIT.identityChanged,
          `${error.message}. If ${address} really has new keys, compare the safety number with them (svc safety-number ${address}), then accept the keys with: svc trust ${address}`,
        ),
        ...(error.identityChange ? { details: { ...error.identityChange } } : {}),
      };
    }
    case "PEER_UNKNOWN":
      return failure(
        EXIT.failure,
        `${error.message}; svc trust ${/ of (\S+) are /.exec(error.message)?.[1] ?? "<address>"} fetches them (using up one of its one-time prekeys, kept for the first message)`,
      );
    case "KT_VERIFICATION_FAILED":
      return failure(EXIT.verification, `key transparency: ${error.message}`);
    case "PQ_DOWNGRADE":
      return failure(
        EXIT.verification,
        `${error.message}; the server may be trying to strip post-quantum protection (svc kt verify shows what the log commits)`,
      );
    case "NO_SESSION":
      return failure(EXIT.failure, error.message);
    case "DEVICE_LIST_INVALID":
      return failure(
        EXIT.verification,
        `${error.message}; nothing was sent (the server may be adding a device of its own to the account)`,
      );
    case "LINK_REFUSED":
      return failure(EXIT.verification, error.message);
    case "LINK_TIMEOUT":
      return failure(EXIT.timeout, error.message);
    case "KT_UNAVAILABLE":
      return failure(
        EXIT.verification,
        `key transparency: ${error.message}; --no-kt accepts such a server (its keys then trusted on first use only), except for kt verify`,
      );
    case "NETWORK":
      return failure(EXIT.failure, `cannot reach the server at ${server}: ${rootCause(error)}`);
    case "TIMEOUT":
      return failure(
        EXIT.failure,
        `the server at ${server} did not answer in time: ${error.message}`,
      );
    case "STORE_LOCKED":
      return failure(
        EXIT.failure,
        `the key store in ${home} is in use by another svc: ${error.message}`,
      );
    default:
      return failure(EXIT.failure);
  }
}

/** A problem that ends nothing (a dropped envelope, a reconnect), to print as a warning. */
export function describeWarning(error: unknown, server: string, home: string): Problem {
  const failure = describeFailure(error, server, home);
  if (failure) return { code: failure.code, message: failure.message };
  return error instanceof Error
    ? { code: error.name, message: error.message }
    : { code: "Error", message: String(error) };
}

/**
 * The innermost message of an error chain: "connect ECONNREFUSED 127.0.0.1:1", not "fetch failed";
 * the code when it has none (the AggregateError of a connection tried on several addresses).
 */
function rootCause(error: Error): string {
  let inner = error;
  while (inner.cause instanceof Error) inner = inner.cause;
  return inner.message || (inner as NodeJS.ErrnoException).code || error.message;
}

/** A Node system error (EACCES, ENOTDIR, EROFS…) from the key store's files. */
function systemError(error: unknown): { code: string; message: string } | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === "string" && /^E[A-Z]+$/.test(code)
    ? { code, message: error.message }
    : undefined;
}
