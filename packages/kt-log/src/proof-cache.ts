import type { KtProof, KtProofBody, SignedTreeHead } from "@svc/kt-verify";
import { LruMap } from "@svc/node-kit";
import type { IdentityKeys } from "./identity-keys.js";

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
  readonly #entries: LruMap<string, CachedProof>;

  constructor(capacity: number) {
    this.#entries = new LruMap(capacity);
  }

  get capacity(): number {
    return this.#entries.capacity;
  }

  /** The body kept for `address` when it was made at `treeSize`. */
  bodyAt(address: string, treeSize: number): KtProofBody | undefined {
    const entry = this.get(address);
    return entry?.proof.sth.treeSize === treeSize ? entry.proof.body : undefined;
  }

  /** The entry of `address`, without making it the most recently used. */
  peek(address: string): CachedProof | undefined {
    return this.#entries.peek(address);
  }

  get(address: string): CachedProof | undefined {
    return this.#entries.get(address);
  }

  set(address: string, sth: SignedTreeHead, body: KtProofBody, readAt: number): void {
    this.#entries.set(address, { proof: { sth, body }, readAt });
  }
}
