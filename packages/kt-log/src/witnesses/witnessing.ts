import { SerialQueue } from "@svc/canonical";
import { type Database, executeRows } from "@svc/db";
import type { SignedTreeHead } from "@svc/kt-verify";
import { submitCheckpoint } from "@svc/kt-witness";
import { openNote, type Verifier } from "@svc/signed-note";
import { sql } from "drizzle-orm";
import type { Checkpoints } from "./checkpoints.js";

/** A witness the log sends its checkpoints to: its cosignature key and submission URL prefix. */
export interface WitnessEndpoint {
  /** A C2SP verifier key of type 0x04 (cosignature/v1). */
  verifier: Verifier;
  url: string;
}

/** What one submission of a checkpoint to one witness came to. */
export interface WitnessEvent {
  witness: string;
  treeSize: number;
  outcome: "cosigned" | "conflict" | "refused" | "unreachable" | "invalid";
  message?: string;
}

export interface WitnessingOptions {
  db: Database;
  witnesses: readonly WitnessEndpoint[];
  checkpoints: Checkpoints;
  /** RFC 9162 consistency proof between two sizes of the log. */
  consistency: (from: number, to: number) => Promise<Uint8Array[]>;
  now: () => number;
  /** Per submission; default 3 s. */
  timeoutMs?: number;
  /** How long a witness that could not be reached is left to the catch-up; default 30 s. */
  backoffMs?: number;
  onEvent?: (event: WitnessEvent) => void;
  fetch?: typeof fetch;
}

interface Witness extends WitnessEndpoint {
  /** The size this witness last said it holds, once known. */
  known: number | undefined;
  /** Submissions to one witness go one at a time. */
  queue: SerialQueue;
  retryAt: number;
}

/** A 409 answer can move the old size; more than this many in a row is the witness's problem. */
const MAX_ATTEMPTS = 3;

/**
 * Sends checkpoints to the operator's witnesses (C2SP tlog-witness add-checkpoint) and stores each
 * cosignature that verifies under the witness's key. Only committed tree heads are sent: a
 * witness must never hold a size the database could lose.
 */
export class Witnessing {
  readonly #options: WitnessingOptions;
  readonly #witnesses: Witness[];

  constructor(options: WitnessingOptions) {
    this.#options = options;
    this.#witnesses = options.witnesses.map((w) => ({
      ...w,
      known: undefined,
      queue: new SerialQueue(),
      retryAt: 0,
    }));
  }

  /**
   * Submits `sth`'s checkpoint to every witness that is not backing off; resolves when each has
   * answered, failed or timed out. Never rejects: outcomes are reported through onEvent.
   */
  publish(sth: SignedTreeHead): Promise<void> {
    const now = this.#options.now();
    return this.#send(
      sth,
      this.#witnesses.filter((witness) => witness.retryAt <= now),
    );
  }

  /**
   * Submits `sth` (the latest tree head) again to each witness whose stored cosignature is of an
   * older size, or older than `maxAgeMs`: witnesses that were down, and fresh timestamps for an
   * idle log's clients.
   */
  async catchUp(sth: SignedTreeHead, maxAgeMs: number): Promise<void> {
    const rows = await executeRows<{ witness: string; tree_size: string; at: string }>(
      this.#options.db,
      sql`select witness, tree_size::text as tree_size, cosigned_at::text as at from kt_cosignatures`,
    );
    const stored = new Map(
      rows.map((row) => [row.witness, { size: Number(row.tree_size), at: Number(row.at) }]),
    );
    const now = this.#options.now();
    await this.#send(
      sth,
      this.#witnesses.filter((witness) => {
        const row = stored.get(witness.verifier.name);
        return row === undefined || row.size < sth.treeSize || now - row.at >= maxAgeMs;
      }),
    );
  }

  async #send(sth: SignedTreeHead, witnesses: readonly Witness[]): Promise<void> {
    await Promise.all(
      witnesses.map((witness) => witness.queue.run(() => this.#submit(witness, sth))),
    );
  }

  async #submit(witness: Witness, sth: SignedTreeHead): Promise<void> {
    const { checkpoints, consistency, timeoutMs = 3000 } = this.#options;
    const report = (outcome: WitnessEvent["outcome"], message?: string) =>
      this.#options.onEvent?.({
        witness: witness.verifier.name,
        treeSize: sth.treeSize,
        outcome,
        ...(message === undefined ? {} : { message }),
      });
    let oldSize = witness.known ?? 0;
    try {
      const checkpoint = checkpoints.signed(sth);
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        // A witness ahead of this tree head was sent a newer one (by another instance): done.
        if (oldSize > sth.treeSize) return;
        const proof =
          oldSize === 0 || oldSize === sth.treeSize ? [] : await consistency(oldSize, sth.treeSize);
        const answer = await submitCheckpoint({
          url: witness.url,
          oldSize,
          proof,
          checkpoint,
          timeoutMs,
          ...(this.#options.fetch ? { fetch: this.#options.fetch } : {}),
        });
        if (answer.type === "cosigned") {
          const line = verifiedLine(checkpoint, answer.lines, witness.verifier);
          if (line === undefined) {
            return report("invalid", "the answer holds no valid cosignature by the witness's key");
          }
          witness.known = sth.treeSize;
          await this.#store(witness.verifier.name, sth.treeSize, line);
          return report("cosigned");
        }
        if (answer.type === "refused") {
          return report("refused", `${answer.status}: ${answer.message}`);
        }
        witness.known = answer.size;
        if (answer.size === oldSize) {
          return report("conflict", `the witness holds another tree of size ${answer.size}`);
        }
        oldSize = answer.size;
      }
      report("conflict", "the witness's size kept changing");
    } catch (error) {
      witness.retryAt = this.#options.now() + (this.#options.backoffMs ?? 30_000);
      witness.known = undefined;
      report("unreachable", error instanceof Error ? error.message : String(error));
    }
  }

  async #store(witness: string, treeSize: number, line: string): Promise<void> {
    await this.#options.db.execute(sql`
      insert into kt_cosignatures (witness, tree_size, line, cosigned_at)
      values (${witness}, ${treeSize}, ${line}, ${this.#options.now()})
      on conflict (witness) do update
        set tree_size = excluded.tree_size, line = excluded.line, cosigned_at = excluded.cosigned_at
        where kt_cosignatures.tree_size <= excluded.tree_size`);
    this.#options.checkpoints.invalidate();
  }
}

/** The witness's one cosignature line among `lines` that verifies on `checkpoint`, if any. */
function verifiedLine(
  checkpoint: string,
  lines: readonly string[],
  verifier: Verifier,
): string | undefined {
  for (const line of lines) {
    try {
      const opened = openNote(checkpoint + line, [verifier]);
      if (opened.signatures.some((s) => s.key === verifier)) return line;
    } catch {
      // Not this witness's signature, or not a valid one: the next line may be.
    }
  }
  return undefined;
}
