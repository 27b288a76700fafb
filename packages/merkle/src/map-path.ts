import { assertBytes } from "@svc/canonical";
import { assertCount, assertHash } from "./assert.js";
import { MAP_DEPTH, mapNodeHash } from "./map-hash.js";

/**
 * A node of the address index map. The node at `depth` covers every key whose first `depth` bits
 * equal `prefix`; `prefix` holds ceil(depth / 8) bytes with the bits past `depth` zero.
 */
export interface MapNodeCoord {
  readonly depth: number;
  readonly prefix: Uint8Array;
}

/** Map key of a node coordinate: `"<depth>:<prefix hex>"`. */
export function mapNodeKey(depth: number, prefix: Uint8Array): string {
  assertCount("depth", depth);
  assertBytes("prefix", prefix);
  return `${depth}:${toHex(prefix)}`;
}

/** The prefix of the node at `depth` on the path of `key`. */
export function mapNodePrefix(key: Uint8Array, depth: number): Uint8Array {
  assertHash("key", key);
  assertDepth(depth);
  return prefixOf(key, depth);
}

/** The sibling of the node at `depth` (1..256) on the path of `key`. */
export function mapSiblingNode(key: Uint8Array, depth: number): MapNodeCoord {
  assertHash("key", key);
  assertDepth(depth);
  if (depth === 0) throw new RangeError("the root has no sibling");
  const prefix = prefixOf(key, depth);
  const bit = depth - 1;
  prefix[bit >> 3] = (prefix[bit >> 3] as number) ^ (0x80 >> (bit & 7));
  return { depth, prefix };
}

/**
 * The coordinates to read for an update or a proof of `key`: its path nodes and their siblings at
 * depths `from`..`to` (by default all: 257 path nodes and 256 siblings).
 */
export function mapRowCoords(key: Uint8Array, from = 0, to = MAP_DEPTH): MapNodeCoord[] {
  assertHash("key", key);
  assertDepth(from);
  assertDepth(to);
  const coords: MapNodeCoord[] = [];
  for (let depth = from; depth <= to; depth++) {
    coords.push({ depth, prefix: prefixOf(key, depth) });
    if (depth > 0) coords.push(mapSiblingNode(key, depth));
  }
  return coords;
}

/**
 * Hashes up from `node`, the hash at `depth` on the path of `key`, to the root. `sibling(d)` is the
 * hash of the sibling at depth d (d = depth..1).
 */
export function mapRootFrom(
  key: Uint8Array,
  depth: number,
  node: Uint8Array,
  sibling: (depth: number) => Uint8Array,
): Uint8Array {
  let hash = node;
  for (let d = depth - 1; d >= 0; d--) {
    const other = sibling(d + 1);
    hash = keyBit(key, d) === 0 ? mapNodeHash(hash, other) : mapNodeHash(other, hash);
  }
  return hash;
}

/** Bit `i` of a key, most significant bit of byte 0 first: 0 = left child, 1 = right child. */
export function keyBit(key: Uint8Array, i: number): number {
  return ((key[i >> 3] as number) >> (7 - (i & 7))) & 1;
}

/** Number of leading bits `a` and `b` share (256 when equal). */
export function commonPrefixBits(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) {
    const diff = (a[i] as number) ^ (b[i] as number);
    if (diff !== 0) return i * 8 + Math.clz32(diff) - 24;
  }
  return a.length * 8;
}

function assertDepth(depth: number): void {
  assertCount("depth", depth);
  if (depth > MAP_DEPTH) throw new RangeError(`depth must be at most ${MAP_DEPTH}, got ${depth}`);
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
