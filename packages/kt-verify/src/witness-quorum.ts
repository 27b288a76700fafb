import { equalBytes } from "@svc/canonical";
import {
  type Checkpoint,
  ED25519_TYPE,
  keyId,
  type OpenedNote,
  openNoteAsync,
  parseCheckpoint,
  parseNote,
  SignedNoteError,
  type Verifier,
} from "@svc/signed-note";
import { checkpointText } from "./checkpoint.js";
import { KtVerifyError } from "./errors.js";
import type { SthSignatureVerifier } from "./signature.js";
import type { TreeHead } from "./sth.js";
import type { ParsedWitnessPolicy } from "./witness-policy.js";

/** How far past the verifier's clock a cosignature's timestamp may be. */
export const MAX_COSIGNATURE_SKEW_MS = 5 * 60_000;

/** The policy's witnesses whose cosignatures counted for a tree head. */
export interface WitnessQuorumResult {
  /** Names and timestamps (POSIX seconds) of the counted cosignatures, in the note's order. */
  readonly cosignatures: readonly { name: string; timestamp: number }[];
}

/** Notes whose signatures verified, kept so that every bundle under one STH costs no Ed25519. */
const CACHED_NOTES = 8;

/**
 * Checks that a checkpoint note shows a tree head signed by the log and cosigned by enough of
 * the policy's witnesses (docs/protocol.md section 9, "Verification", step 6).
 */
export class WitnessQuorum {
  readonly #policy: ParsedWitnessPolicy;
  readonly #operator: Verifier;
  readonly #trusted: readonly Verifier[];
  readonly #maxAgeMs: number;
  readonly #verify: SthSignatureVerifier;
  readonly #opened = new Map<string, OpenedNote>();

  constructor(
    policy: ParsedWitnessPolicy,
    logPublicKey: Uint8Array,
    defaultMaxAgeMs: number,
    verify: SthSignatureVerifier,
  ) {
    this.#policy = policy;
    this.#operator = {
      name: policy.origin,
      keyId: keyId(policy.origin, ED25519_TYPE, logPublicKey),
      type: ED25519_TYPE,
      publicKey: logPublicKey,
    };
    this.#trusted = [this.#operator, ...policy.witnesses];
    this.#maxAgeMs = policy.maxAgeMs ?? defaultMaxAgeMs;
    this.#verify = verify;
  }

  /**
   * The checkpoint `note` must be the log's, for exactly `head`, cosigned by `threshold` distinct
   * policy witnesses within `maxAgeMs` of `now` (and at most 5 minutes ahead). KtVerifyError:
   * KT_WITNESS_QUORUM (no note, too few cosignatures), KT_MALFORMED, KT_WRONG_LOG (another
   * origin), KT_CHECKPOINT_MISMATCH (another size, root hash or index root), KT_BAD_SIGNATURE
   * (no valid operator signature, or a trusted key's signature that does not verify).
   */
  async check(head: TreeHead, note: unknown, now: number): Promise<WitnessQuorumResult> {
    const { threshold, witnesses } = this.#policy;
    if (note === undefined) {
      throw new KtVerifyError(
        "KT_WITNESS_QUORUM",
        `no checkpoint for the STH at size ${head.treeSize}: 0 of ${threshold} needed witness cosignatures verified`,
      );
    }
    if (typeof note !== "string") throw malformed("the checkpoint must be a string");
    const expected = checkpointText(this.#policy.origin, head);
    let opened = this.#opened.get(note);
    if (opened === undefined) {
      const text = noteText(note, this.#policy.origin);
      if (text !== expected) this.#mismatch(text, head);
      opened = await this.#open(note);
    } else if (opened.text !== expected) {
      this.#mismatch(opened.text, head);
    }
    const cosignatures = this.#counted(opened, now);
    if (cosignatures.length < threshold) {
      const outOfWindow = opened.signatures.length - 1 - cosignatures.length;
      throw new KtVerifyError(
        "KT_WITNESS_QUORUM",
        `the checkpoint at size ${head.treeSize} has ${cosignatures.length} of ${threshold} needed ` +
          `witness cosignatures (${witnesses.length} witnesses in the policy; ` +
          `${outOfWindow} more too old or too far ahead)`,
      );
    }
    return { cosignatures };
  }

  /** Verifies the signatures of a note whose text is the expected one, and keeps it. */
  async #open(note: string): Promise<OpenedNote> {
    let opened: OpenedNote;
    try {
      opened = await openNoteAsync(note, this.#trusted, this.#verify);
    } catch (error) {
      throw fromSignedNote(error, this.#policy.origin);
    }
    if (!opened.signatures.some((signature) => signature.key === this.#operator)) {
      throw notSignedByLog(this.#policy.origin);
    }
    if (this.#opened.size >= CACHED_NOTES) {
      this.#opened.delete(this.#opened.keys().next().value as string);
    }
    this.#opened.set(note, opened);
    return opened;
  }

  /** Cosignatures by policy witnesses (each witness once) whose time is in the window. */
  #counted(opened: OpenedNote, now: number): { name: string; timestamp: number }[] {
    const counted: { name: string; timestamp: number }[] = [];
    for (const { key, timestamp } of opened.signatures) {
      if (key === this.#operator || timestamp === undefined) continue;
      const seconds = Number(timestamp);
      const ms = seconds * 1000;
      if (now - ms > this.#maxAgeMs || ms - now > MAX_COSIGNATURE_SKEW_MS) continue;
      if (counted.some((c) => c.name === key.name)) continue;
      counted.push({ name: key.name, timestamp: seconds });
    }
    return counted;
  }

  /** Why a checkpoint's text is not the one of `head`: its origin, or which value differs. */
  #mismatch(text: string, head: TreeHead): never {
    let checkpoint: Checkpoint;
    try {
      checkpoint = parseCheckpoint(text);
    } catch (error) {
      throw fromSignedNote(error, this.#policy.origin);
    }
    if (checkpoint.origin !== this.#policy.origin) {
      throw new KtVerifyError(
        "KT_WRONG_LOG",
        `the checkpoint is for origin ${JSON.stringify(checkpoint.origin)}, ` +
          `the policy's is ${JSON.stringify(this.#policy.origin)}`,
      );
    }
    const differs =
      checkpoint.size !== BigInt(head.treeSize)
        ? `its size is ${checkpoint.size}`
        : !equalBytes(checkpoint.rootHash, head.rootHash)
          ? "its root hash differs"
          : `its extension lines are not exactly "indexRoot <the STH's indexRoot>"`;
    throw new KtVerifyError(
      "KT_CHECKPOINT_MISMATCH",
      `the checkpoint is not the one of the STH at size ${head.treeSize}: ${differs}`,
    );
  }
}

/** The text of a note, its layout checked (KT_MALFORMED), its signatures not yet. */
function noteText(note: string, origin: string): string {
  try {
    return parseNote(note).text;
  } catch (error) {
    throw fromSignedNote(error, origin);
  }
}

/** The size a checkpoint note claims, read before anything is verified (KT_MALFORMED). */
export function checkpointSize(note: unknown): number {
  if (typeof note !== "string") throw malformed("the checkpoint must be a string");
  let size: bigint;
  try {
    size = parseCheckpoint(parseNote(note).text).size;
  } catch (error) {
    if (!(error instanceof SignedNoteError)) throw error;
    throw malformed(`checkpoint: ${error.message}`);
  }
  if (size > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw malformed(`the checkpoint's size ${size} is above 2^53 - 1`);
  }
  return Number(size);
}

function fromSignedNote(error: unknown, origin: string): KtVerifyError {
  if (!(error instanceof SignedNoteError)) throw error;
  switch (error.code) {
    case "NOTE_UNVERIFIED":
      return notSignedByLog(origin);
    case "NOTE_INVALID_SIGNATURE":
    case "NOTE_AMBIGUOUS_KEY":
      return new KtVerifyError("KT_BAD_SIGNATURE", `checkpoint: ${error.message}`);
    default:
      return malformed(`checkpoint: ${error.message}`);
  }
}

function notSignedByLog(origin: string): KtVerifyError {
  return new KtVerifyError(
    "KT_BAD_SIGNATURE",
    `the checkpoint carries no valid signature of the log's key under the name ${origin}`,
  );
}

function malformed(message: string): KtVerifyError {
  return new KtVerifyError("KT_MALFORMED", message);
}
