import { decodeBase64, encodeBase64 } from "./base64.js";
import { SignedNoteError } from "./errors.js";

/** A C2SP tlog-checkpoint body. */
export interface Checkpoint {
  /** The log's origin line: non-empty. */
  readonly origin: string;
  /** The tree size, 0 to 2^64 - 1. */
  readonly size: bigint;
  /** The 32-byte root hash. */
  readonly rootHash: Uint8Array;
  /** Extension lines, each non-empty, without their newline. */
  readonly extensions: readonly string[];
}

const MAX_SIZE = (1n << 64n) - 1n;
// ASCII control characters (newline included: a line holds none).
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
const CONTROL = /[\u0000-\u001f\u007f]/;

function malformed(message: string): SignedNoteError {
  return new SignedNoteError("CHECKPOINT_MALFORMED", message);
}

function checkLine(line: string, what: string): void {
  if (line === "" || CONTROL.test(line) || /\p{Cs}/u.test(line)) {
    throw malformed(`the ${what} must be a non-empty line without control characters`);
  }
}

/** The checkpoint's note text: origin, size, base64 root hash, extension lines, each ending in "\n". */
export function formatCheckpoint(checkpoint: {
  origin: string;
  size: bigint | number;
  rootHash: Uint8Array;
  extensions?: readonly string[];
}): string {
  checkLine(checkpoint.origin, "origin");
  if (typeof checkpoint.size === "number" && !Number.isSafeInteger(checkpoint.size)) {
    throw malformed("the tree size is not an integer");
  }
  const size = BigInt(checkpoint.size);
  if (size < 0n || size > MAX_SIZE) throw malformed("the tree size is out of range");
  if (checkpoint.rootHash.length !== 32) throw malformed("the root hash is 32 bytes");
  const extensions = checkpoint.extensions ?? [];
  for (const line of extensions) checkLine(line, "extension line");
  return [checkpoint.origin, size.toString(10), encodeBase64(checkpoint.rootHash), ...extensions]
    .map((line) => `${line}\n`)
    .join("");
}

/**
 * Parses a checkpoint's note text strictly: ending in a newline; a non-empty origin; a decimal
 * size without leading zeros below 2^64; a base64 32-byte root hash; non-empty extension lines.
 */
export function parseCheckpoint(text: string): Checkpoint {
  if (!text.endsWith("\n")) throw malformed("a checkpoint ends in a newline");
  const [origin, sizeLine, hashLine, ...extensions] = text.slice(0, -1).split("\n");
  if (origin === undefined || sizeLine === undefined || hashLine === undefined) {
    throw malformed("a checkpoint has an origin, a size and a root hash line");
  }
  checkLine(origin, "origin");
  if (!/^(?:0|[1-9][0-9]{0,19})$/.test(sizeLine)) {
    throw malformed("the tree size is decimal without leading zeros");
  }
  const size = BigInt(sizeLine);
  if (size > MAX_SIZE) throw malformed("the tree size is out of range");
  const rootHash = decodeBase64(hashLine);
  if (rootHash === undefined || rootHash.length !== 32) {
    throw malformed("the root hash is 32 bytes in base64");
  }
  for (const line of extensions) checkLine(line, "extension line");
  return { origin, size, rootHash, extensions };
}
