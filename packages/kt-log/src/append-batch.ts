import type { Database } from "@svc/db";
import { encodeLeafV2, type KtLeaf, leafCommitment, type SignedTreeHead } from "@svc/kt-verify";
import {
  CompactRange,
  leafHash,
  type MapRow,
  mapNodeKey,
  planMapUpdate,
  rootNodes,
  type SubtreeNode,
  subtreeKey,
} from "@svc/merkle";
import { readRowsFor, shallowDepth } from "./index-map-rows.js";
import {
  type AppendRows,
  lockSequencer,
  readMapRows,
  readSth,
  readSubtrees,
  writeAppendRows,
} from "./log-store.js";
import type { SthSigner } from "./signer.js";
import type { AddressIndex } from "./vrf-indexes.js";

/** An identity change to log: a leaf without its timestamp (the log stamps it). */
export type KtChange =
  | Omit<Extract<KtLeaf, { kind: "identity" }>, "timestampMs">
  | Omit<Extract<KtLeaf, { kind: "tombstone" }>, "timestampMs">;

/** A change with its address's VRF index, as the batch appends it. */
export type IndexedChange = KtChange & { vrf: AddressIndex };

export interface Appended {
  leafIndex: number;
  /** The STH of the tree that ends with this leaf. */
  sth: SignedTreeHead;
}

/** The log's right edge as of a tree size, kept between batches to skip re-reading it. */
export interface RightEdge {
  size: number;
  nodes: readonly SubtreeNode[];
}

/**
 * Appends `changes` in one transaction under the sequencer lock: one v2 leaf (a fresh opening for
 * its commitment), one STH (signed for its own size) and the index-map update per change, all
 * written in one statement. Returns the results in order and the new right edge.
 */
export async function appendBatch(
  db: Database,
  signer: SthSigner,
  changes: readonly IndexedChange[],
  timestamp: number,
  edge: RightEdge | undefined,
  newOpening: () => Uint8Array = randomOpening,
): Promise<{ appended: Appended[]; edge: RightEdge }> {
  return db.transaction(async (tx) => {
    const keys = changes.map((change) => change.vrf.index);
    // Sent together, run in this order: the reads see what every append before the lock wrote.
    // The map is read as deep as the last known size suggests; any depth reads the right rows.
    const [, latest, mapRows] = await Promise.all([
      lockSequencer(tx),
      readSth(tx, signer.logId),
      readRowsFor(keys, shallowDepth((edge?.size ?? 0) + changes.length), (coords) =>
        readMapRows(tx, coords),
      ),
    ]);
    if (latest === undefined) throw new Error("the KT log is not initialized");
    const range = await rightEdge(tx, latest.treeSize, edge);
    const timestampMs = Math.max(timestamp, latest.timestampMs);

    const rows: AppendRows = { leaves: [], vrf: [], subtrees: [], mapRows: [], sths: [] };
    const written = new Map<string, MapRow>();
    const appended: Appended[] = [];
    for (const [i, change] of changes.entries()) {
      const opening = newOpening();
      const commitment = leafCommitment(
        opening,
        change.address,
        change.kind === "identity" ? change : undefined,
      );
      const leaf = encodeLeafV2({
        kind: change.kind,
        index: change.vrf.index,
        commitment,
        timestampMs,
      });
      const hash = leafHash(leaf);
      const leafIndex = range.size;
      rows.leaves.push({ leafIndex, address: change.address, leaf, opening });
      rows.vrf.push({ address: change.address, ...change.vrf });
      rows.subtrees.push(...range.append(hash));
      const { root, writes } = planMapUpdate(keys[i] as Uint8Array, hash, mapRows);
      for (const row of writes) {
        const key = mapNodeKey(row.depth, row.prefix);
        mapRows.set(key, row);
        written.set(key, row);
      }
      const sth = signer.sign({
        treeSize: range.size,
        timestampMs,
        rootHash: range.root(),
        indexRoot: root,
      });
      rows.sths.push(sth);
      appended.push({ leafIndex, sth });
    }
    rows.mapRows = [...written.values()];
    await writeAppendRows(tx, rows);
    return { appended, edge: { size: range.size, nodes: range.nodes() } };
  });
}

/** A fresh 32-byte commitment opening. */
export function randomOpening(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(32));
}

async function rightEdge(
  db: Database,
  size: number,
  cached: RightEdge | undefined,
): Promise<CompactRange> {
  if (cached !== undefined && cached.size === size) {
    return CompactRange.fromNodes(
      size,
      new Map(cached.nodes.map((n) => [subtreeKey(n.level, n.index), n.hash])),
    );
  }
  return CompactRange.fromNodes(size, await readSubtrees(db, rootNodes(size)));
}
