import {
  MAP_DEPTH,
  type MapNodeCoord,
  type MapProof,
  mapNodeKey,
  mapNodePrefix,
  mapProofFromSiblings,
  mapSiblingNodes,
  mapUpdatePath,
} from "@svc/merkle";

/**
 * Stored form of the address index map. The hashes are @svc/merkle's (index-map.md); only the
 * rows differ: a node holding two or more keys has a row, the top node of a single-key subtree
 * has a row naming that key and value, and no node below such a top has one. So an insert writes
 * about log2(n) + 3 rows instead of 257, and a missing row is a default node or lies below a
 * single-key top on the same path (whose key and value give its hash).
 */
export interface MapRow extends MapNodeCoord {
  readonly hash: Uint8Array;
  /** Set on the top node of a single-key subtree: its one key and value. */
  readonly leafKey: Uint8Array | null;
  readonly leafValue: Uint8Array | null;
}

/** Rows keyed by {@link mapNodeKey}; holds at least the rows at the {@link mapRowCoords} of a key. */
export type MapRows = ReadonlyMap<string, MapRow>;

/**
 * The coordinates to read for an update or a proof of `key`: its path nodes and their siblings at
 * depths `from`..`to` (by default all: 257 path nodes and 256 siblings).
 */
export function mapRowCoords(key: Uint8Array, from = 0, to = MAP_DEPTH): MapNodeCoord[] {
  const siblings = mapSiblingNodes(key);
  const coords: MapNodeCoord[] = [];
  for (let depth = from; depth <= to; depth++) {
    coords.push({ depth, prefix: mapNodePrefix(key, depth) });
    if (depth > 0) coords.push(siblings[depth - 1] as MapNodeCoord);
  }
  return coords;
}

/**
 * Reads the rows `planMapUpdate` and `mapProofFromRows` need for `keys` with `read` (one query
 * per call): first down to depth {@link SHALLOW_DEPTH}, where every path ends unless two keys
 * share that many leading bits, then the rest only for keys whose stored path goes that deep.
 */
export async function readRowsFor(
  keys: readonly Uint8Array[],
  read: (coords: MapNodeCoord[]) => Promise<Map<string, MapRow>>,
): Promise<Map<string, MapRow>> {
  const rows = await read(distinct(keys.flatMap((key) => mapRowCoords(key, 0, SHALLOW_DEPTH))));
  const deep = keys.filter((key) =>
    rows.has(mapNodeKey(SHALLOW_DEPTH, mapNodePrefix(key, SHALLOW_DEPTH))),
  );
  if (deep.length > 0) {
    const more = await read(distinct(deep.flatMap((key) => mapRowCoords(key, SHALLOW_DEPTH + 1))));
    for (const [coord, row] of more) rows.set(coord, row);
  }
  return rows;
}

/** Paths of n random keys end near depth log2(n) + 2: 64 leaves room for 2^60 addresses. */
export const SHALLOW_DEPTH = 64;

function distinct(coords: MapNodeCoord[]): MapNodeCoord[] {
  const seen = new Map<string, MapNodeCoord>();
  for (const coord of coords) seen.set(mapNodeKey(coord.depth, coord.prefix), coord);
  return [...seen.values()];
}

/** Sets `key` to `value`: the new root and the rows to upsert (no row ever needs deleting). */
export function planMapUpdate(
  key: Uint8Array,
  value: Uint8Array,
  rows: MapRows,
): { root: Uint8Array; writes: MapRow[] } {
  const layout = pathLayout(key, rows);
  const path = mapUpdatePath(key, value, layout.siblings);
  const writes: MapRow[] = [];
  for (const node of path) {
    if (node.depth < layout.top) writes.push({ ...node, leafKey: null, leafValue: null });
    else if (node.depth === layout.top) writes.push({ ...node, leafKey: key, leafValue: value });
  }
  if (layout.pushedDown !== undefined) writes.push(layout.pushedDown);
  return { root: (path[path.length - 1] as { hash: Uint8Array }).hash, writes };
}

/** The index proof for `key` (membership or not) from the stored rows. */
export function mapProofFromRows(key: Uint8Array, rows: MapRows): MapProof {
  return mapProofFromSiblings(key, pathLayout(key, rows).siblings);
}

interface PathLayout {
  /** Depth of `key`'s single-key top once it is set. */
  top: number;
  /** Sibling hashes of `key`'s path, with the one implied by a single-key top filled in. */
  siblings: (depth: number, prefix: Uint8Array) => Uint8Array | undefined;
  /** The other key's new top when `key` splits its single-key subtree. */
  pushedDown?: MapRow;
}

function pathLayout(key: Uint8Array, rows: MapRows): PathLayout {
  const stored = (depth: number, prefix: Uint8Array) => rows.get(mapNodeKey(depth, prefix));
  // Rows on a path run unbroken from the root: a stored node's parent holds two keys or more.
  let deepest: MapRow | undefined;
  for (let depth = 0; depth <= MAP_DEPTH; depth++) {
    const row = stored(depth, mapNodePrefix(key, depth));
    if (row === undefined) break;
    deepest = row;
  }
  if (deepest === undefined) return { top: 0, siblings: () => undefined };
  const last = deepest.depth;
  // A sibling hangs off the path node one level up: below the deepest row there are none.
  const fromRows = (depth: number, prefix: Uint8Array) =>
    depth <= last + 1 ? stored(depth, prefix)?.hash : undefined;
  const other = deepest.leafKey;
  if (other === null) return { top: last + 1, siblings: fromRows };
  if (sameBytes(other, key)) return { top: last, siblings: fromRows };

  // `key` enters the single-key subtree of `other`: both get tops just below where they part.
  const otherValue = deepest.leafValue as Uint8Array;
  const top = commonPrefixBits(key, other) + 1;
  const pushedDown: MapRow = {
    depth: top,
    prefix: mapNodePrefix(other, top),
    hash: singleKeyHash(other, otherValue, top),
    leafKey: other,
    leafValue: otherValue,
  };
  return {
    top,
    pushedDown,
    siblings: (depth, prefix) =>
      depth === top ? pushedDown.hash : depth <= last ? stored(depth, prefix)?.hash : undefined,
  };
}

/** Hash at `depth` of a subtree holding only `key` -> `value`. */
function singleKeyHash(key: Uint8Array, value: Uint8Array, depth: number): Uint8Array {
  const path = mapUpdatePath(key, value, () => undefined);
  return (path[MAP_DEPTH - depth] as { hash: Uint8Array }).hash;
}

function commonPrefixBits(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) {
    const diff = (a[i] as number) ^ (b[i] as number);
    if (diff !== 0) return i * 8 + Math.clz32(diff) - 24;
  }
  return MAP_DEPTH;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
