import { decodeBase64, encodeBase64 } from "@svc/signed-note";
import { WitnessError } from "./errors.js";

/** The most consistency-proof lines an add-checkpoint body may carry. */
export const MAX_PROOF_LINES = 63;

/** An add-checkpoint body, parsed. */
export interface AddCheckpointRequest {
  /** The size of the latest checkpoint the witness cosigned, as the log believes it to be. */
  oldSize: number;
  /** The consistency proof from `oldSize` to the checkpoint's size: 32-byte hashes. */
  proof: Uint8Array[];
  /** The signed checkpoint note (text, blank line, signature lines). */
  checkpoint: string;
}

/**
 * The body of `POST <prefix>/add-checkpoint`: `old <size>`, one base64 hash per proof line, an
 * empty line, then the signed checkpoint. Caller mistakes throw TypeError / RangeError.
 */
export function formatAddCheckpoint(request: {
  oldSize: number;
  proof: readonly Uint8Array[];
  checkpoint: string;
}): string {
  const { oldSize, proof, checkpoint } = request;
  if (typeof oldSize !== "number" || !Number.isSafeInteger(oldSize) || oldSize < 0) {
    throw new RangeError(`oldSize must be a non-negative safe integer, got ${oldSize}`);
  }
  if (!Array.isArray(proof)) throw new TypeError("proof must be an array");
  if (proof.length > MAX_PROOF_LINES) {
    throw new RangeError(`proof must have at most ${MAX_PROOF_LINES} hashes`);
  }
  for (const [i, hash] of proof.entries()) {
    if (!(hash instanceof Uint8Array) || hash.length !== 32) {
      throw new RangeError(`proof[${i}] must be a 32-byte Uint8Array`);
    }
  }
  if (typeof checkpoint !== "string" || !isNoteShaped(checkpoint)) {
    throw new TypeError("checkpoint must be a signed note: its origin line first, a final newline");
  }
  const lines = proof.map((hash) => `${encodeBase64(hash)}\n`).join("");
  return `old ${oldSize}\n${lines}\n${checkpoint}`;
}

/**
 * Parses an add-checkpoint body strictly; anything else throws WitnessError WITNESS_BAD_REQUEST.
 * The checkpoint is only split off here: its signatures and layout are the witness's to check.
 */
export function parseAddCheckpoint(body: string): AddCheckpointRequest {
  if (typeof body !== "string") throw badRequest("the body is not text");
  const first = body.indexOf("\n");
  if (first < 0) throw badRequest("the body starts with an old size line");
  const oldSize = parseOldSize(body.slice(0, first));
  const proof: Uint8Array[] = [];
  let start = first + 1;
  for (;;) {
    const end = body.indexOf("\n", start);
    if (end < 0) throw badRequest("the consistency proof lines end with an empty line");
    const line = body.slice(start, end);
    start = end + 1;
    if (line === "") break;
    if (proof.length === MAX_PROOF_LINES) {
      throw badRequest(`more than ${MAX_PROOF_LINES} consistency proof lines`);
    }
    const hash = decodeBase64(line);
    if (hash === undefined || hash.length !== 32) {
      throw badRequest("a consistency proof line holds one base64 32-byte hash");
    }
    proof.push(hash);
  }
  const checkpoint = body.slice(start);
  if (!isNoteShaped(checkpoint)) {
    throw badRequest(
      "the checkpoint follows the empty line: its origin line first, a final newline",
    );
  }
  return { oldSize, proof, checkpoint };
}

function parseOldSize(line: string): number {
  const match = /^old (0|[1-9][0-9]*)$/.exec(line);
  if (match?.[1] === undefined) {
    throw badRequest("the first line is 'old <size>', decimal without leading zeros");
  }
  const size = Number(match[1]);
  if (match[1].length > 16 || !Number.isSafeInteger(size)) {
    throw badRequest("the old size is larger than 2^53 - 1");
  }
  return size;
}

function isNoteShaped(checkpoint: string): boolean {
  return checkpoint !== "" && !checkpoint.startsWith("\n") && checkpoint.endsWith("\n");
}

function badRequest(message: string): WitnessError {
  return new WitnessError("WITNESS_BAD_REQUEST", message);
}
