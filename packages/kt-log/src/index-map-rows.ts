import {
  MAP_DEPTH,
  type MapNodeCoord,
  type MapRow,
  mapNodeKey,
  mapNodePrefix,
  mapRowCoords,
} from "@svc/merkle";

/**
 * How deep to read index-map paths at first in a map of at most `keys` keys. A key's path ends
 * where no other key shares its prefix: past depth log2(n) + 8 that happens for about one key in
 * 256, which then needs a second read ({@link pathContinues}).
 */
export function shallowDepth(keys: number): number {
  return Math.min(MAP_DEPTH, Math.ceil(Math.log2(keys + 1)) + 8);
}

/** Whether the stored path of `key` may go on below `depth` (it has a row there). */
export function pathContinues(
  key: Uint8Array,
  depth: number,
  rows: ReadonlyMap<string, MapRow>,
): boolean {
  return depth < MAP_DEPTH && rows.has(mapNodeKey(depth, mapNodePrefix(key, depth)));
}

/**
 * Reads the index-map rows `planMapUpdate` and `mapProofFromRows` need for `keys` with `read`
 * (one query per call): first down to `depth` (see {@link shallowDepth}), then the rest only for
 * keys whose stored path goes that deep.
 */
export async function readRowsFor(
  keys: readonly Uint8Array[],
  depth: number,
  read: (coords: MapNodeCoord[]) => Promise<Map<string, MapRow>>,
): Promise<Map<string, MapRow>> {
  const rows = await read(distinct(keys.flatMap((key) => mapRowCoords(key, 0, depth))));
  const deep = keys.filter((key) => pathContinues(key, depth, rows));
  if (deep.length > 0) {
    const more = await read(distinct(deep.flatMap((key) => mapRowCoords(key, depth + 1))));
    for (const [coord, row] of more) rows.set(coord, row);
  }
  return rows;
}

/** `coords` without repeats. */
export function distinct(coords: MapNodeCoord[]): MapNodeCoord[] {
  const seen = new Map<string, MapNodeCoord>();
  for (const coord of coords) seen.set(mapNodeKey(coord.depth, coord.prefix), coord);
  return [...seen.values()];
}
