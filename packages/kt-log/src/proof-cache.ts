import type { KtProof, KtProofBody, SignedTreeHead } from "@svc/kt-verify";

/** The identity keys an answer shows for an address; undefined when it is not registered. */
export interface IdentityKeys {
  identitySigningKey: Uint8Array;
  identityDHKey: Uint8Array;
}

/** A proof kept for reuse: `readAt` is when its STH was read as the latest (a monotonic clock). */
export interface CachedProof {
  proof: KtProof;
  readAt: number;
  /** The identity keys the proof was last found to show (an inclusion proof's). */
  shown?: IdentityKeys;
}

/**
 * Proofs by address, each with the STH it was made under. A body at size n never changes (the
 * latest leaf below n, the index map as of n, complete subtrees), so later fetches under an STH
 * of the same size reuse it. Holds at most `capacity` addresses, dropping the least recently
 * used.
 */
export class ProofCache {
  readonly #entries = new Map<string, CachedProof>();

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 0) {
      throw new RangeError("capacity must be a non-negative integer");
    }
  }

  /** The body kept for `address` when it was made at `treeSize`. */
  bodyAt(address: string, treeSize: number): KtProofBody | undefined {
    const entry = this.get(address);
    return entry?.proof.sth.treeSize === treeSize ? entry.proof.body : undefined;
  }

  /** The entry of `address`, without making it the most recently used. */
  peek(address: string): CachedProof | undefined {
    return this.#entries.get(address);
  }

  get(address: string): CachedProof | undefined {
    const entry = this.#entries.get(address);
    if (entry === undefined) return undefined;
    this.#entries.delete(address);
    this.#entries.set(address, entry);
    return entry;
  }

  set(address: string, sth: SignedTreeHead, body: KtProofBody, readAt: number): void {
    if (this.capacity === 0) return;
    this.#entries.delete(address);
    this.#entries.set(address, { proof: { sth, body }, readAt });
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }
}
