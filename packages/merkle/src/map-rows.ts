import { equalBytes } from "@svc/canonical";
import { EMPTY_MAP_NODE, MAP_DEPTH, mapLeafHash, mapNodeHash } from "./map-hash.js";
import {
  commonPrefixBits,
  keyBit,
  type MapNodeCoord,
  mapNodeKey,
  mapNodePrefix,
  mapSiblingNode,
} from "./map-path.js";
import type { MapProof } from "./map-proof.js";

/**
 * Stored form of the address index map (index-map.md): one row per node holding two keys or more,
 * and one row per single-key subtree, at its top, naming its key and value. Empty subtrees and
 * the inside of single-key subtrees have no rows.
 */
export interface MapRow extends MapNodeCoord {
  readonly hash: Uint8Array;
  /** Set on a single-key subtree: its one key and value. */
  readonly leafKey: Uint8Array | null;
  readonly leafValue: Uint8Array | null;
}

/** Rows keyed by {@link mapNodeKey}; holds at least the rows at the mapRowCoords of a key. */
export type MapRows = ReadonlyMap<string, MapRow>;

/** Sets `key` to `value`: the new root and the rows to upsert (no row ever needs deleting). */
export function planMapUpdate(
  key: Uint8Array,
  value: Uint8Array,
  rows: MapRows,
): { root: Uint8Array; writes: MapRow[] } {
  const layout = pathLayout(key, rows);
  const top = layout.other === undefined ? layout.end : layout.split;
  const sibling = (depth: number): Uint8Array => {
    if (layout.other === undefined || depth < layout.split) return layout.sibling(depth);
    return depth === layout.split ? layout.other.hash : EMPTY_MAP_NODE;
  };
  let hash = mapLeafHash(key, value);
  const writes: MapRow[] = [
    { depth: top, prefix: mapNodePrefix(key, top), hash, leafKey: key, leafValue: value },
  ];
  for (let depth = top - 1; depth >= 0; depth--) {
    const other = sibling(depth + 1);
    hash = keyBit(key, depth) === 0 ? mapNodeHash(hash, other) : mapNodeHash(other, hash);
    writes.push({ depth, prefix: mapNodePrefix(key, depth), hash, leafKey: null, leafValue: null });
  }
  if (layout.other !== undefined) writes.push(layout.other);
  return { root: hash, writes };
}

/** The proof for `key` (membership or not) from the stored rows. */
export function mapProofFromRows(key: Uint8Array, rows: MapRows): MapProof {
  const { end, sibling, terminal } = pathLayout(key, rows);
  const bitmap = new Uint8Array(MAP_DEPTH / 8);
  const siblings: Uint8Array[] = [];
  for (let depth = 1; depth <= end; depth++) {
    const hash = sibling(depth);
    if (equalBytes(hash, EMPTY_MAP_NODE)) continue;
    const bit = depth - 1;
    bitmap[bit >> 3] = (bitmap[bit >> 3] as number) | (0x80 >> (bit & 7));
    siblings.push(hash);
  }
  if (terminal === null || equalBytes(terminal.leafKey as Uint8Array, key)) {
    return { depth: end, bitmap, siblings };
  }
  const other = { key: terminal.leafKey as Uint8Array, value: terminal.leafValue as Uint8Array };
  return { depth: end, bitmap, siblings, other };
}

/** The value stored for `key`, if any. */
export function mapValueFromRows(key: Uint8Array, rows: MapRows): Uint8Array | undefined {
  const { terminal } = pathLayout(key, rows);
  return terminal !== null && equalBytes(terminal.leafKey as Uint8Array, key)
    ? (terminal.leafValue as Uint8Array)
    : undefined;
}

type PathLayout = {
  /** Depth where the path of `key` meets an empty subtree or a single-key one (`terminal`). */
  end: number;
  terminal: MapRow | null;
  /** Hash of the sibling at `depth` (1..end) of the path, stored or empty. */
  sibling: (depth: number) => Uint8Array;
} & (
  | { other?: undefined; split?: undefined }
  /** `key` enters another key's single-key subtree: that key's new top at `split`. */
  | { other: MapRow; split: number }
);

function pathLayout(key: Uint8Array, rows: MapRows): PathLayout {
  const stored = (coord: MapNodeCoord) => rows.get(mapNodeKey(coord.depth, coord.prefix));
  const sibling = (depth: number) => stored(mapSiblingNode(key, depth))?.hash ?? EMPTY_MAP_NODE;
  // Rows on a path run unbroken from the root down to an empty or a single-key subtree.
  let end = 0;
  let terminal: MapRow | null = null;
  for (; end <= MAP_DEPTH; end++) {
    const row = stored({ depth: end, prefix: mapNodePrefix(key, end) });
    if (row === undefined) break;
    if (row.leafKey !== null) {
      terminal = row;
      break;
    }
  }
  if (terminal === null || equalBytes(terminal.leafKey as Uint8Array, key)) {
    return { end, terminal, sibling };
  }
  // Both keys get single-key subtrees just below the depth where their paths part.
  const otherKey = terminal.leafKey as Uint8Array;
  const split = commonPrefixBits(key, otherKey) + 1;
  const other: MapRow = { ...terminal, depth: split, prefix: mapNodePrefix(otherKey, split) };
  return { end, terminal, sibling, other, split };
}
