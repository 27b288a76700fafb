import { assertBytes, assertCount, assertHash } from "./assert.js";
import { equalBytes } from "./bytes.js";
import { defaultHashes, MAP_DEPTH, mapLeafHash, mapNodeHash } from "./map-hash.js";
import type { MapProof } from "./map-proof.js";

/**
 * A node of the address index map as a storage row. The node at `depth` covers every key whose
 * first `depth` bits equal `prefix`; `prefix` holds ceil(depth / 8) bytes with the bits past
 * `depth` zero. Rows exist only for non-default nodes: a missing row means the default hash.
 */
export interface MapNodeCoord {
  readonly depth: number;
  readonly prefix: Uint8Array;
}

export interface MapNode extends MapNodeCoord {
  readonly hash: Uint8Array;
}

/**
 * Where stored map nodes come from: a getter, or a map keyed by {@link mapNodeKey}.
 * Returns undefined for a node that has no row (its hash is the default for its depth).
 */
export type MapNodeSource =
  | ((depth: number, prefix: Uint8Array) => Uint8Array | undefined)
  | ReadonlyMap<string, Uint8Array>;

/** Map key of a node coordinate: `"<depth>:<prefix hex>"`. */
export function mapNodeKey(depth: number, prefix: Uint8Array): string {
  assertCount("depth", depth);
  assertBytes("prefix", prefix);
  return `${depth}:${toHex(prefix)}`;
}

/** The prefix row key of the node at `depth` on the path of `key`. */
export function mapNodePrefix(key: Uint8Array, depth: number): Uint8Array {
  assertHash("key", key);
  assertCount("depth", depth);
  if (depth > MAP_DEPTH) throw new RangeError(`depth must be at most ${MAP_DEPTH}, got ${depth}`);
  return prefixOf(key, depth);
}

/**
 * The 256 siblings of the path of `key`, top-down (depth 1 first): the rows to read, in one
 * query, for a proof or an update of that key.
 */
export function mapSiblingNodes(key: Uint8Array): MapNodeCoord[] {
  assertHash("key", key);
  const out: MapNodeCoord[] = [];
  for (let depth = 1; depth <= MAP_DEPTH; depth++) {
    const prefix = prefixOf(key, depth);
    const bit = depth - 1;
    prefix[bit >> 3] = (prefix[bit >> 3] as number) ^ (0x80 >> (bit & 7));
    out.push({ depth, prefix });
  }
  return out;
}

/**
 * The 257 nodes on the path of `key` after setting it to `value`, from the leaf (depth 256) to
 * the root (depth 0): the rows a server upserts. The last one's hash is the new map root.
 */
export function mapUpdatePath(
  key: Uint8Array,
  value: Uint8Array,
  siblings: MapNodeSource,
): MapNode[] {
  const sibs = readSiblings(key, siblings);
  let hash = mapLeafHash(key, value);
  const out: MapNode[] = [{ depth: MAP_DEPTH, prefix: prefixOf(key, MAP_DEPTH), hash }];
  for (let depth = MAP_DEPTH - 1; depth >= 0; depth--) {
    const sibling = sibs[depth] as Uint8Array;
    hash = keyBit(key, depth) === 0 ? mapNodeHash(hash, sibling) : mapNodeHash(sibling, hash);
    out.push({ depth, prefix: prefixOf(key, depth), hash });
  }
  return out;
}

/** The compressed proof for `key` from its stored siblings (see {@link mapSiblingNodes}). */
export function mapProofFromSiblings(key: Uint8Array, siblings: MapNodeSource): MapProof {
  const sibs = readSiblings(key, siblings);
  const defaults = defaultHashes();
  const bitmap = new Uint8Array(MAP_DEPTH / 8);
  const listed: Uint8Array[] = [];
  for (let d = 0; d < MAP_DEPTH; d++) {
    const sibling = sibs[d] as Uint8Array;
    if (!equalBytes(sibling, defaults[d + 1] as Uint8Array)) {
      bitmap[d >> 3] = (bitmap[d >> 3] as number) | (0x80 >> (d & 7));
      listed.push(sibling);
    }
  }
  return { bitmap, siblings: listed };
}

/** Bit `i` of a key, most significant bit of byte 0 first: 0 = left child, 1 = right child. */
export function keyBit(key: Uint8Array, i: number): number {
  return ((key[i >> 3] as number) >> (7 - (i & 7))) & 1;
}

/** Sibling hashes indexed by the depth of their parent (0..255), defaults filled in. */
function readSiblings(key: Uint8Array, source: MapNodeSource): Uint8Array[] {
  if (typeof source !== "function" && !(source instanceof Map)) {
    throw new TypeError("siblings must be a function or a Map");
  }
  const defaults = defaultHashes();
  return mapSiblingNodes(key).map(({ depth, prefix }) => {
    const hash =
      typeof source === "function" ? source(depth, prefix) : source.get(mapNodeKey(depth, prefix));
    if (hash === undefined) return defaults[depth] as Uint8Array;
    assertHash(`map node ${depth}`, hash);
    return hash;
  });
}

function prefixOf(key: Uint8Array, depth: number): Uint8Array {
  const prefix = key.slice(0, Math.ceil(depth / 8));
  const rest = depth % 8;
  if (rest !== 0) {
    const last = prefix.length - 1;
    prefix[last] = (prefix[last] as number) & ((0xff << (8 - rest)) & 0xff);
  }
  return prefix;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += HEX[b];
  return out;
}
