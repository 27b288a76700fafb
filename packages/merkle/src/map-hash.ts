import { sha256 } from "@noble/hashes/sha2.js";
import { assertCount, assertHash, HASH_SIZE } from "./assert.js";

/** Key length of the address index map in bits: keys are SHA-256 outputs. */
export const MAP_DEPTH = 256;

/** Hash of an empty leaf slot (depth 256): 32 zero bytes. No SHA-256 output is expected to equal it. */
export const EMPTY_MAP_LEAF: Uint8Array = new Uint8Array(HASH_SIZE);

/** Prefixes separating map hashes from each other and from the log's 0x00 / 0x01. */
const MAP_LEAF_PREFIX = Uint8Array.of(0x02);
const MAP_NODE_PREFIX = Uint8Array.of(0x03);

/** Map key of an address: SHA-256 of its UTF-8 bytes (the address already normalized per D2). */
export function mapKey(address: string): Uint8Array {
  if (typeof address !== "string") throw new TypeError("address must be a string");
  return sha256(new TextEncoder().encode(address));
}

/** Hash of an occupied leaf: SHA-256(0x02 || key || value). */
export function mapLeafHash(key: Uint8Array, value: Uint8Array): Uint8Array {
  assertHash("key", key);
  assertHash("value", value);
  return sha256.create().update(MAP_LEAF_PREFIX).update(key).update(value).digest();
}

/** Hash of an interior node: SHA-256(0x03 || left || right). */
export function mapNodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  assertHash("left", left);
  assertHash("right", right);
  return sha256.create().update(MAP_NODE_PREFIX).update(left).update(right).digest();
}

/**
 * Hash of an empty subtree whose root sits at `depth` (0 = the whole map, 256 = one leaf slot):
 * EMPTY_MAP_LEAF at 256, mapNodeHash(d + 1, d + 1) above. Computed once, on first use.
 */
export function mapDefaultHash(depth: number): Uint8Array {
  assertCount("depth", depth);
  if (depth > MAP_DEPTH) throw new RangeError(`depth must be at most ${MAP_DEPTH}, got ${depth}`);
  return (defaultHashes()[depth] as Uint8Array).slice();
}

/** Root of the empty map. */
export function emptyMapRoot(): Uint8Array {
  return mapDefaultHash(0);
}

let defaults: readonly Uint8Array[] | undefined;

/** The shared table of default hashes, index = depth. Internal: callers must not mutate it. */
export function defaultHashes(): readonly Uint8Array[] {
  if (defaults === undefined) {
    const table: Uint8Array[] = new Array(MAP_DEPTH + 1);
    let h: Uint8Array = EMPTY_MAP_LEAF.slice();
    table[MAP_DEPTH] = h;
    for (let depth = MAP_DEPTH - 1; depth >= 0; depth--) {
      h = mapNodeHash(h, h);
      table[depth] = h;
    }
    defaults = table;
  }
  return defaults;
}
