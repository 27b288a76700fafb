import { bytesToHex, encodeBase64 } from "@svc/canonical";
import { formatCheckpoint, isValidKeyName } from "@svc/signed-note";
import type { TreeHead } from "./sth.js";

/** The prefix of a log's default origin: `svc-kt/` and 16 hex digits of its logId. */
const DEFAULT_ORIGIN_PREFIX = "svc-kt/";

/**
 * The origin of a log whose operator set none: `svc-kt/` and the lower-case hex of the first
 * 8 bytes of its logId (SHA-256 of the operator key), so stable for the log's key.
 */
export function defaultOrigin(logId: Uint8Array): string {
  if (!(logId instanceof Uint8Array)) throw new TypeError("logId must be a Uint8Array");
  if (logId.length !== 32) throw new RangeError("logId must be 32 bytes");
  return DEFAULT_ORIGIN_PREFIX + bytesToHex(logId.subarray(0, 8));
}

/**
 * The checkpoint note text (C2SP tlog-checkpoint) of a tree head of the log named `origin`:
 * `<origin>\n<treeSize>\n<base64 rootHash>\nindexRoot <base64 indexRoot>\n`. The operator signs
 * it under key name `origin`, witnesses cosign it; the server and the verifier both build it here.
 */
export function checkpointText(
  origin: string,
  sth: Pick<TreeHead, "treeSize" | "rootHash" | "indexRoot">,
): string {
  checkOrigin(origin, "origin");
  if (typeof sth !== "object" || sth === null) throw new TypeError("sth must be an object");
  if (!Number.isSafeInteger(sth.treeSize) || sth.treeSize < 0) {
    throw new RangeError("sth.treeSize must be a non-negative integer");
  }
  for (const name of ["rootHash", "indexRoot"] as const) {
    const value = sth[name];
    if (!(value instanceof Uint8Array)) throw new TypeError(`sth.${name} must be a Uint8Array`);
    if (value.length !== 32) throw new RangeError(`sth.${name} must be 32 bytes`);
  }
  return formatCheckpoint({
    origin,
    size: sth.treeSize,
    rootHash: sth.rootHash,
    extensions: [`indexRoot ${encodeBase64(sth.indexRoot)}`],
  });
}

/**
 * An origin is a checkpoint's first line and the operator's key name: a key name (non-empty,
 * no "+" and no white space) without control characters. TypeError or RangeError naming `name`.
 */
export function checkOrigin(origin: unknown, name: string): asserts origin is string {
  if (typeof origin !== "string") throw new TypeError(`${name} must be a string`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
  if (!isValidKeyName(origin) || /[\u0000-\u001f\u007f]/.test(origin)) {
    throw new RangeError(
      `${name} must be a key name: non-empty, without "+", white space or control characters`,
    );
  }
}
