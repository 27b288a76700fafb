import { assertHash } from "./assert.js";
import { MAP_DEPTH, mapDefaultHash } from "./map-hash.js";
import {
  type MapNode,
  mapNodeKey,
  mapNodePrefix,
  mapProofFromSiblings,
  mapUpdatePath,
} from "./map-path.js";
import type { MapProof } from "./map-proof.js";

/**
 * In-memory address index map. It keeps exactly the rows a server keeps, (depth, prefix) -> hash
 * for non-default nodes, and goes through the same {@link mapUpdatePath} and
 * {@link mapProofFromSiblings} a server uses over its table.
 */
export class SparseMerkleMap {
  readonly #nodes = new Map<string, Uint8Array>();
  readonly #values = new Map<string, Uint8Array>();

  /** Number of keys set. */
  get size(): number {
    return this.#values.size;
  }

  /** Value of `key`, or undefined when never set. */
  get(key: Uint8Array): Uint8Array | undefined {
    assertHash("key", key);
    return this.#values.get(mapNodeKey(MAP_DEPTH, key))?.slice();
  }

  /** Sets `key` to `value` (a log leaf hash; tombstones are values too) and returns the written path. */
  set(key: Uint8Array, value: Uint8Array): MapNode[] {
    const path = mapUpdatePath(key, value, this.#nodes);
    for (const node of path) this.#nodes.set(mapNodeKey(node.depth, node.prefix), node.hash);
    this.#values.set(mapNodeKey(MAP_DEPTH, key), value.slice());
    return path;
  }

  /** Current root (the STH's indexRoot). */
  root(): Uint8Array {
    return this.#nodes.get(mapNodeKey(0, new Uint8Array(0)))?.slice() ?? mapDefaultHash(0);
  }

  /** Membership proof if `key` is set, otherwise a non-membership proof. */
  prove(key: Uint8Array): MapProof {
    return mapProofFromSiblings(key, this.#nodes);
  }

  /** Stored hash of the node at `depth` on the path of `key` (the default when no row exists). */
  nodeAt(key: Uint8Array, depth: number): Uint8Array {
    const prefix = mapNodePrefix(key, depth);
    return this.#nodes.get(mapNodeKey(depth, prefix))?.slice() ?? mapDefaultHash(depth);
  }
}
