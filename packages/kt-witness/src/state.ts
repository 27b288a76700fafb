/** The latest checkpoint a witness cosigned for one log. */
export interface CosignedTree {
  /** Its tree size, a safe integer. */
  readonly size: number;
  /** Its 32-byte root hash. */
  readonly rootHash: Uint8Array;
}

/**
 * Where a witness keeps, per log origin, the latest checkpoint it cosigned. `write` resolves only
 * once the new state is durable: the witness answers 200 after it. The store does not serialize
 * anything; the `Witness` runs one request per origin at a time.
 */
export interface WitnessState {
  read(origin: string): Promise<CosignedTree | undefined>;
  write(origin: string, tree: CosignedTree): Promise<void>;
}

/** A state kept in memory only, for tests: a witness that forgets on restart can be rolled back. */
export class MemoryWitnessState implements WitnessState {
  readonly #trees = new Map<string, CosignedTree>();

  async read(origin: string): Promise<CosignedTree | undefined> {
    const tree = this.#trees.get(origin);
    return tree && { size: tree.size, rootHash: tree.rootHash.slice() };
  }

  async write(origin: string, tree: CosignedTree): Promise<void> {
    this.#trees.set(origin, { size: tree.size, rootHash: tree.rootHash.slice() });
  }
}
