import {
  type MapNodeCoord,
  type MapRow,
  mapNodeKey,
  mapNodePrefix,
  mapRowCoords,
} from "@svc/merkle";

/**
 * Reads the index-map rows `planMapUpdate` and `mapProofFromRows` need for `keys` with `read`
 * (one query per call): first down to depth {@link SHALLOW_DEPTH}, where every path ends unless
 * two keys share that many leading bits, then the rest only for keys whose stored path goes that
 * deep.
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

/** `coords` without repeats. */
export function distinct(coords: MapNodeCoord[]): MapNodeCoord[] {
  const seen = new Map<string, MapNodeCoord>();
  for (const coord of coords) seen.set(mapNodeKey(coord.depth, coord.prefix), coord);
  return [...seen.values()];
}
