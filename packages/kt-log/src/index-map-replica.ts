import { emptyMapRoot, mapNodeKey } from "@svc/merkle";
import { type MapRow, mapProofFromRows, mapRowCoords, planMapUpdate } from "./index-map-rows.js";

/**
 * The address index map in memory, stored as the log stores it (about 2.5 rows per key): for
 * monitors that replay the log and check each STH's indexRoot, and for tests.
 */
export class IndexMapReplica {
  readonly #rows = new Map<string, MapRow>();
  #root = emptyMapRoot();

  /** Current root (the indexRoot of an STH after the same updates). */
  get root(): Uint8Array {
    return this.#root.slice();
  }

  /** Number of stored rows. */
  get rowCount(): number {
    return this.#rows.size;
  }

  /** Sets `key` (SHA-256 of an address) to `value` (its latest leaf hash); returns the rows written. */
  set(key: Uint8Array, value: Uint8Array): MapRow[] {
    const { root, writes } = planMapUpdate(key, value, this.#rows);
    for (const row of writes) this.#rows.set(mapNodeKey(row.depth, row.prefix), row);
    this.#root = root;
    return writes;
  }

  prove(key: Uint8Array) {
    return mapProofFromRows(key, this.#rows);
  }

  /** The rows at `key`'s coordinates, as the log reads them for a proof. */
  rowsFor(key: Uint8Array): Map<string, MapRow> {
    const out = new Map<string, MapRow>();
    for (const { depth, prefix } of mapRowCoords(key)) {
      const row = this.#rows.get(mapNodeKey(depth, prefix));
      if (row !== undefined) out.set(mapNodeKey(depth, prefix), row);
    }
    return out;
  }
}
