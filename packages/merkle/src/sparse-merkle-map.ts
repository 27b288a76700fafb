import { assertHash } from "./assert.js";
import { emptyMapRoot } from "./map-hash.js";
import { mapNodeKey, mapRowCoords } from "./map-path.js";
import type { MapProof } from "./map-proof.js";
import { type MapRow, mapProofFromRows, mapValueFromRows, planMapUpdate } from "./map-rows.js";

/**
 * The address index map in memory, stored as a server stores it (about 2.5 rows per key) and
 * updated by the same {@link planMapUpdate}: for monitors that replay a log and check each STH's
 * indexRoot, and for tests.
 */
export class SparseMerkleMap {
  readonly #rows = new Map<string, MapRow>();
  #root = emptyMapRoot();
  #size = 0;

  /** Number of keys set. */
  get size(): number {
    return this.#size;
  }

  /** Number of stored rows. */
  get rowCount(): number {
    return this.#rows.size;
  }

  /** Current root (the indexRoot of an STH after the same updates). */
  root(): Uint8Array {
    return this.#root.slice();
  }

  /** Value of `key`, or undefined when never set. */
  get(key: Uint8Array): Uint8Array | undefined {
    assertHash("key", key);
    return mapValueFromRows(key, this.#rows)?.slice();
  }

  /** Sets `key` to `value` (a log leaf hash; tombstones are values too); returns the rows written. */
  set(key: Uint8Array, value: Uint8Array): MapRow[] {
    assertHash("key", key);
    assertHash("value", value);
    if (mapValueFromRows(key, this.#rows) === undefined) this.#size += 1;
    const { root, writes } = planMapUpdate(key.slice(), value.slice(), this.#rows);
    for (const row of writes) this.#rows.set(mapNodeKey(row.depth, row.prefix), row);
    this.#root = root;
    return writes;
  }

  /** Membership proof if `key` is set, otherwise a non-membership proof. */
  prove(key: Uint8Array): MapProof {
    assertHash("key", key);
    return mapProofFromRows(key, this.#rows);
  }

  /** The stored rows at `key`'s coordinates, as a server reads them for a proof or an update. */
  rowsFor(key: Uint8Array): Map<string, MapRow> {
    const out = new Map<string, MapRow>();
    for (const { depth, prefix } of mapRowCoords(key)) {
      const row = this.#rows.get(mapNodeKey(depth, prefix));
      if (row !== undefined) out.set(mapNodeKey(depth, prefix), row);
    }
    return out;
  }
}
