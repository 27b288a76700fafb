import { equalBytes } from "@svc/canonical";
import type { Database } from "@svc/db";
import { checkpointText, type SignedTreeHead } from "@svc/kt-verify";
import { LruMap } from "@svc/node-kit";
import { type Signer, signNote } from "@svc/signed-note";
import { asc, eq } from "drizzle-orm";
import { ktCosignatures } from "../schema.js";

/** How long the cosignatures read for a tree size are served before they are read again. */
const COSIGNATURES_TTL_MS = 1000;
/** Tree sizes whose notes are kept: proofs may be under any head of the last second. */
const CACHED_SIZES = 64;

interface Cached {
  readAt: number;
  note: Promise<string>;
}

/**
 * The log's tree heads as C2SP checkpoints: the checkpoint text of an STH signed by the operator
 * key under the log's origin, followed by the cosignature lines the witnesses gave for that size.
 * Each size's cosigned note is kept for a second: other instances may store cosignatures too.
 * While bundles are fetched, the latest size's note is read again beside them (reread).
 */
export class Checkpoints {
  readonly origin: string;
  readonly #db: Database;
  readonly #signer: Signer;
  readonly #now: () => number;
  readonly #signed = new LruMap<number, { rootHash: Uint8Array; note: string }>(CACHED_SIZES);
  readonly #cosigned = new LruMap<number, Cached>(CACHED_SIZES);
  /** Counts invalidations: a read that began before one must not be kept. */
  #generation = 0;

  constructor(options: { db: Database; origin: string; signer: Signer; now: () => number }) {
    this.origin = options.origin;
    this.#db = options.db;
    this.#signer = options.signer;
    this.#now = options.now;
  }

  /** The checkpoint of `sth` with the operator's signature only. */
  signed(sth: SignedTreeHead): string {
    const cached = this.#signed.peek(sth.treeSize);
    if (cached !== undefined && equalBytes(cached.rootHash, sth.rootHash)) return cached.note;
    const note = signNote(checkpointText(this.origin, sth), [this.#signer]);
    this.#signed.set(sth.treeSize, { rootHash: sth.rootHash, note });
    return note;
  }

  /** The checkpoint of `sth` with every stored cosignature of its size. */
  cosigned(sth: SignedTreeHead): Promise<string> {
    const now = this.#now();
    const cached = this.#cosigned.peek(sth.treeSize);
    if (cached !== undefined && now - cached.readAt < COSIGNATURES_TTL_MS) return cached.note;
    const note = this.#read(sth);
    const entry = { readAt: now, note };
    this.#cosigned.set(sth.treeSize, entry);
    note.catch(() => {
      if (this.#cosigned.peek(sth.treeSize) === entry) this.#cosigned.delete(sth.treeSize);
    });
    return note;
  }

  /**
   * Reads `sth`'s cosignatures again beside the requests, which the note read before keeps
   * answering meanwhile; kept unless this instance stored a cosignature during the read.
   */
  async reread(sth: SignedTreeHead): Promise<void> {
    const readAt = this.#now();
    const generation = this.#generation;
    const note = await this.#read(sth);
    if (generation !== this.#generation) return;
    this.#cosigned.set(sth.treeSize, { readAt, note: Promise.resolve(note) });
  }

  /** Forgets the cached cosignatures (this instance stored a new one). */
  invalidate(): void {
    this.#generation++;
    this.#cosigned.clear();
  }

  async #read(sth: SignedTreeHead): Promise<string> {
    const rows = await this.#db
      .select({ line: ktCosignatures.line })
      .from(ktCosignatures)
      .where(eq(ktCosignatures.treeSize, sth.treeSize))
      .orderBy(asc(ktCosignatures.witness));
    return this.signed(sth) + rows.map((row) => row.line).join("");
  }
}
