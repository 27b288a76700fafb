import { assertCount } from "./assert.js";
import { CompactRange } from "./compact-range.js";
import { MerkleError } from "./errors.js";
import { consistencyProof, inclusionProof } from "./log-proof.js";
import { rootFromNodes, subtreeKey } from "./subtree.js";
import { leafHash } from "./tree-hash.js";

/**
 * An in-memory log that stores exactly what a server stores: the complete subtrees returned by
 * {@link CompactRange.append}. Proofs and roots for any past size are read from that table.
 */
export class MemoryTree {
  readonly #range = new CompactRange();
  readonly #nodes = new Map<string, Uint8Array>();

  /** Number of leaves. */
  get size(): number {
    return this.#range.size;
  }

  /** Appends a raw leaf (hashed with the 0x00 prefix) and returns its index. */
  append(leaf: Uint8Array): number {
    return this.appendLeafHash(leafHash(leaf));
  }

  /** Appends an already-hashed leaf and returns its index. */
  appendLeafHash(hash: Uint8Array): number {
    const index = this.#range.size;
    for (const node of this.#range.append(hash)) {
      this.#nodes.set(subtreeKey(node.level, node.index), node.hash);
    }
    return index;
  }

  /** The stored complete subtree at (level, index); MerkleError MERKLE_MISSING_NODE if absent. */
  readonly getNode = (level: number, index: number): Uint8Array => {
    const hash = this.#nodes.get(subtreeKey(level, index));
    if (hash === undefined) {
      throw new MerkleError("MERKLE_MISSING_NODE", `no subtree at level ${level} index ${index}`);
    }
    return hash;
  };

  /** Leaf hash at `index`. */
  leafHash(index: number): Uint8Array {
    assertCount("index", index);
    if (index >= this.size) throw new RangeError(`index ${index} is outside the log`);
    return this.getNode(0, index);
  }

  /** Root at `treeSize` (default: the current size). */
  root(treeSize: number = this.size): Uint8Array {
    this.#checkSize("treeSize", treeSize);
    return treeSize === this.size ? this.#range.root() : rootFromNodes(treeSize, this.#nodes);
  }

  inclusionProof(index: number, treeSize: number = this.size): Uint8Array[] {
    this.#checkSize("treeSize", treeSize);
    return inclusionProof(index, treeSize, this.#nodes);
  }

  consistencyProof(from: number, to: number = this.size): Uint8Array[] {
    this.#checkSize("to", to);
    return consistencyProof(from, to, this.#nodes);
  }

  #checkSize(name: string, treeSize: number): void {
    assertCount(name, treeSize);
    if (treeSize > this.size) {
      throw new RangeError(`${name} (${treeSize}) exceeds the log size (${this.size})`);
    }
  }
}
