import { type Database, executeRows, plainBytes } from "@svc/db";
import { decodeLeaf, type SignedTreeHead } from "@svc/kt-verify";
import { sql } from "drizzle-orm";
import { appendUnderLock, type IndexedChange, type RightEdge } from "./append-batch.js";
import { updateMapFormat } from "./log-store.js";
import type { SthSigner } from "./signer.js";
import type { VrfIndexes } from "./vrf-indexes.js";

/** Restatements appended per append batch (each its own leaf and STH). */
const BATCH = 256;

/**
 * Moves a log from map format 2 (SHA-256(address) keys, v1 leaves) to format 3, inside the
 * caller's transaction, which holds the sequencer lock: the map is emptied, then each address,
 * in the order of its latest leaf, gets a v2 leaf of that leaf's kind and keys, appended with its
 * own STH, so the format-3 map of the new head holds every address. Old leaves and STHs stay as
 * they are: the log only grows. Returns the STHs signed.
 */
export async function migrateToVrf(
  tx: Database,
  signer: SthSigner,
  indexes: VrfIndexes,
  now: number,
): Promise<SignedTreeHead[]> {
  const latest = await executeRows<{ leaf: Uint8Array }>(
    tx,
    sql`select leaf from (
      select distinct on (address) leaf_index, leaf from kt_leaves order by address, leaf_index desc
    ) latest order by leaf_index`,
  );
  await tx.execute(sql`delete from kt_map_nodes`);
  const changes = latest.map(({ leaf }): IndexedChange => {
    const decoded = decodeLeaf(plainBytes(leaf));
    const vrf = indexes.prove(decoded.address);
    return decoded.kind === "identity"
      ? {
          kind: "identity",
          address: decoded.address,
          identitySigningKey: decoded.identitySigningKey,
          identityDHKey: decoded.identityDHKey,
          vrf,
        }
      : { kind: "tombstone", address: decoded.address, vrf };
  });
  const published: SignedTreeHead[] = [];
  let edge: RightEdge | undefined;
  for (let start = 0; start < changes.length; start += BATCH) {
    const batch = await appendUnderLock(tx, {
      signer,
      changes: changes.slice(start, start + BATCH),
      timestamp: now,
      edge,
    });
    edge = batch.edge;
    published.push(...batch.appended.map((a) => a.sth));
  }
  await updateMapFormat(tx, 3, indexes.publicKey);
  return published;
}
