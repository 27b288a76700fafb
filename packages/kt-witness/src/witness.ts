import { KeyedSerial } from "@svc/canonical";
import { verifyConsistency } from "@svc/merkle";
import {
  COSIGNATURE_V1_TYPE,
  cosign,
  ED25519_TYPE,
  formatVerifierKey,
  isValidKeyName,
  openNote,
  parseCheckpoint,
  SignedNoteError,
  type Signer,
  type Verifier,
} from "@svc/signed-note";
import { parseAddCheckpoint } from "./add-checkpoint.js";
import { WitnessError } from "./errors.js";
import type { CosignedTree, WitnessState } from "./state.js";

/** What the witness answers an add-checkpoint request; the routes turn it into HTTP. */
export type WitnessAnswer =
  /** Cosigned: `lines` are the cosignature lines, each ending in a newline. */
  | { status: 200; origin: string; size: number; lines: string }
  /** The old size is not the latest cosigned size, or the same size has another root. */
  | { status: 409; origin: string; size: number; message: string }
  | { status: 400 | 403 | 404 | 422; origin?: string; message: string };

export interface WitnessOptions {
  /** The witness's own Ed25519 key; its name is the cosignatures' key name. */
  signer: Signer;
  /** The logs' note verifier keys (type 0x01), each named by its log's origin. */
  logs: readonly Verifier[];
  state: WitnessState;
  /** The clock of the cosignatures' timestamps, in milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** A checkpoint whose log signature verified. */
interface Checked {
  origin: string;
  size: number;
  rootHash: Uint8Array;
  /** The note text that the cosignature signs. */
  text: string;
}

interface Submission {
  oldSize: number;
  proof: readonly Uint8Array[];
  checkpoint: Checked;
}

/**
 * A C2SP tlog-witness: cosigns a log's checkpoint only when it extends, by a verified
 * consistency proof, the latest checkpoint it cosigned for that log. The check of the old size
 * and the write of the new state run one request per origin at a time in this process, so two
 * concurrent requests can never move a log's state backwards.
 */
export class Witness {
  readonly #signer: Signer;
  readonly #logs = new Map<string, Verifier[]>();
  readonly #state: WitnessState;
  readonly #now: () => number;
  /** Each origin's tasks run one after another. */
  readonly #origins = new KeyedSerial();

  constructor(options: WitnessOptions) {
    const { signer, logs, state } = options;
    if (
      typeof signer?.name !== "string" ||
      !isValidKeyName(signer.name) ||
      signer.seed?.length !== 32
    ) {
      throw new TypeError("signer must be an Ed25519 Signer (parseSignerKey)");
    }
    for (const [i, log] of logs.entries()) {
      if (log.type !== ED25519_TYPE) {
        throw new RangeError(`logs[${i}] (${log.name}) must be an Ed25519 (0x01) verifier key`);
      }
      this.#logs.set(log.name, [...(this.#logs.get(log.name) ?? []), log]);
    }
    this.#signer = signer;
    this.#state = state;
    this.#now = options.now ?? Date.now;
  }

  /** The C2SP verifier key (type 0x04, cosignature/v1) that checks this witness's cosignatures. */
  verifierKey(): string {
    return formatVerifierKey(this.#signer.name, this.#signer.publicKey, COSIGNATURE_V1_TYPE);
  }

  /**
   * Handles an add-checkpoint body. Rejects only when the state cannot be read or written;
   * every refusal of the request is an answer.
   */
  async add(body: string): Promise<WitnessAnswer> {
    const request = this.#check(body);
    if ("status" in request) return request;
    const { oldSize, proof, checkpoint } = request;
    const answer = await this.#origins.run(checkpoint.origin, async () => {
      const stored = await this.#state.read(checkpoint.origin);
      const refusal = refuseUpdate(stored, oldSize, proof, checkpoint);
      if (refusal) return refusal;
      if (stored?.size !== checkpoint.size || !sameBytes(stored.rootHash, checkpoint.rootHash)) {
        await this.#state.write(checkpoint.origin, {
          size: checkpoint.size,
          rootHash: checkpoint.rootHash,
        });
      }
      return undefined;
    });
    if (answer) return answer;
    const seconds = Math.floor(this.#now() / 1000);
    const lines = cosign(checkpoint.text, this.#signer.name, this.#signer.seed, seconds);
    return { status: 200, origin: checkpoint.origin, size: checkpoint.size, lines };
  }

  /** The checks that need no state: layout, known origin, the log's signature, sizes. */
  #check(body: string): WitnessAnswer | Submission {
    let request: ReturnType<typeof parseAddCheckpoint>;
    try {
      request = parseAddCheckpoint(body);
    } catch (error) {
      if (error instanceof WitnessError) return { status: 400, message: error.message };
      throw error;
    }
    const origin = request.checkpoint.slice(0, request.checkpoint.indexOf("\n"));
    const keys = this.#logs.get(origin);
    if (keys === undefined) {
      return { status: 404, message: `unknown log origin ${JSON.stringify(origin.slice(0, 200))}` };
    }
    let text: string;
    try {
      text = openNote(request.checkpoint, keys).text;
    } catch (error) {
      if (!(error instanceof SignedNoteError)) throw error;
      const forbidden = ["NOTE_UNVERIFIED", "NOTE_INVALID_SIGNATURE", "NOTE_AMBIGUOUS_KEY"];
      return forbidden.includes(error.code)
        ? { status: 403, origin, message: `no valid signature by the log's key: ${error.message}` }
        : { status: 400, origin, message: `the checkpoint is not a signed note: ${error.message}` };
    }
    let size: number;
    let rootHash: Uint8Array;
    try {
      const parsed = parseCheckpoint(text);
      size = Number(parsed.size);
      rootHash = parsed.rootHash;
    } catch (error) {
      if (!(error instanceof SignedNoteError)) throw error;
      return { status: 400, origin, message: `not a checkpoint: ${error.message}` };
    }
    if (!Number.isSafeInteger(size)) {
      return { status: 400, origin, message: "the checkpoint's size is larger than 2^53 - 1" };
    }
    if (request.oldSize > size) {
      return {
        status: 400,
        origin,
        message: `the old size ${request.oldSize} exceeds the checkpoint's size ${size}`,
      };
    }
    return {
      oldSize: request.oldSize,
      proof: request.proof,
      checkpoint: { origin, size, rootHash, text },
    };
  }
}

/** The checks against the stored state, in the protocol's order; undefined: cosign. */
function refuseUpdate(
  stored: CosignedTree | undefined,
  oldSize: number,
  proof: readonly Uint8Array[],
  checkpoint: Checked,
): WitnessAnswer | undefined {
  const { origin, size, rootHash } = checkpoint;
  const latest = stored?.size ?? 0;
  if (oldSize !== latest) {
    return {
      status: 409,
      origin,
      size: latest,
      message: `the old size ${oldSize} is not the latest cosigned size ${latest}`,
    };
  }
  if (stored !== undefined && size === latest && !sameBytes(stored.rootHash, rootHash)) {
    return {
      status: 409,
      origin,
      size: latest,
      message: `another root at the cosigned size ${size}`,
    };
  }
  // Every tree extends the empty one: from size 0 there is nothing to prove, and nothing to
  // check the root against at first contact.
  const consistent =
    oldSize === 0 || stored === undefined
      ? proof.length === 0
      : verifyConsistency(oldSize, size, stored.rootHash, rootHash, proof);
  if (!consistent) {
    return {
      status: 422,
      origin,
      message: `the consistency proof from ${oldSize} to ${size} does not verify`,
    };
  }
  return undefined;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
