import { assertHash } from "./assert.js";
import { lookupSubtree, rootNodes, type SubtreeNode, type SubtreeSource } from "./subtree.js";
import { emptyRoot, nodeHash } from "./tree-hash.js";

/**
 * The right edge of an append-only log: one complete-subtree hash per set bit of the size,
 * largest (leftmost) first. Enough to append leaves and compute the root in O(log n).
 */
export class CompactRange {
  #size = 0;
  #nodes: SubtreeNode[] = [];

  /**
   * Rebuilds the range of a stored log from its complete subtrees (the {@link rootNodes} of its
   * size); MerkleError MERKLE_MISSING_NODE if one is missing.
   */
  static fromNodes(treeSize: number, nodes: SubtreeSource): CompactRange {
    const range = new CompactRange();
    const coords = rootNodes(treeSize);
    range.#nodes = coords.map(({ level, index }) => ({
      level,
      index,
      hash: lookupSubtree(nodes, level, index).slice(),
    }));
    range.#size = treeSize;
    return range;
  }

  /** Number of leaves covered. */
  get size(): number {
    return this.#size;
  }

  /** The right-edge subtrees, largest first. */
  nodes(): readonly SubtreeNode[] {
    return this.#nodes.slice();
  }

  /**
   * Appends one leaf hash and returns every complete subtree it completes, bottom-up, starting
   * with the leaf itself at level 0: exactly the rows a server persists for this append.
   */
  append(leafHash: Uint8Array): SubtreeNode[] {
    assertHash("leafHash", leafHash);
    if (this.#size >= Number.MAX_SAFE_INTEGER) throw new RangeError("the log is full");
    let node: SubtreeNode = { level: 0, index: this.#size, hash: leafHash.slice() };
    const created = [node];
    let last = this.#nodes[this.#nodes.length - 1];
    while (last !== undefined && last.level === node.level) {
      this.#nodes.pop();
      node = { level: node.level + 1, index: last.index / 2, hash: nodeHash(last.hash, node.hash) };
      created.push(node);
      last = this.#nodes[this.#nodes.length - 1];
    }
    this.#nodes.push(node);
    this.#size += 1;
    return created;
  }

  /** MTH of the covered leaves. */
  root(): Uint8Array {
    let acc: Uint8Array | undefined;
    for (let i = this.#nodes.length - 1; i >= 0; i--) {
      const hash = (this.#nodes[i] as SubtreeNode).hash;
      acc = acc === undefined ? hash : nodeHash(hash, acc);
    }
    return acc === undefined ? emptyRoot() : acc.slice();
  }
}
