import type { KtProofBody } from "@svc/kt-verify";

/**
 * Proof bodies by address, each for the tree size it was made at. A body at size n never
 * changes (the latest leaf below n, the index map as of n, complete subtrees), so later fetches
 * under an STH of the same size reuse it. Holds at most `capacity` addresses, dropping the least
 * recently used.
 */
export class ProofCache {
  readonly #entries = new Map<string, { treeSize: number; body: KtProofBody }>();

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 0) {
      throw new RangeError("capacity must be a non-negative integer");
    }
  }

  get(address: string, treeSize: number): KtProofBody | undefined {
    const entry = this.#entries.get(address);
    if (entry?.treeSize !== treeSize) return undefined;
    this.#entries.delete(address);
    this.#entries.set(address, entry);
    return entry.body;
  }

  set(address: string, treeSize: number, body: KtProofBody): void {
    if (this.capacity === 0) return;
    this.#entries.delete(address);
    this.#entries.set(address, { treeSize, body });
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }
}
