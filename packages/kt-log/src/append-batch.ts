import type { Database } from "@svc/db";
import {
  deviceListCommitment,
  deviceListSubject,
  encodeLeafV2,
  type KtLeaf,
  leafCommitment,
  type SignedTreeHead,
} from "@svc/kt-verify";
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
import { type CurrentIdentities, type IdentityKeys, sameIdentity } from "./identity-keys.js";
import { readRowsFor, shallowDepth } from "./index-map-rows.js";
import {
  type AppendRows,
  lockSequencer,
  readLatestLeaves,
  readMapRows,
  readProofState,
  readSubtrees,
  writeAppendRows,
} from "./log-store.js";
import type { SthSigner } from "./signer.js";
import type { AddressIndex } from "./vrf-indexes.js";

/**
 * An identity change to log: a leaf without its timestamp (the log stamps it). An identity with
 * a last-resort KEM key adds its SHA-256, which the leaf's commitment covers: setting or
 * replacing that key is a change of its own.
 */
export type KtChange =
  | (Omit<Extract<KtLeaf, { kind: "identity" }>, "timestampMs"> & { kemKeyHash?: Uint8Array })
  | Omit<Extract<KtLeaf, { kind: "tombstone" }>, "timestampMs">
  | DeviceListChange;

/**
 * A version of an account's device list: an identity leaf under the list's own name in the log
 * (`address`, see {@link deviceListChange}), committing to the version's hash. The version itself
 * is kept beside the leaf (not in it): a change whose version is not newer than the one the log
 * shows appends nothing, so a late append (a writer's, or a repair's that read before another
 * writer) never makes an older version the latest again.
 */
export interface DeviceListChange {
  kind: "device-list";
  /** deviceListSubject(account): the name the log keeps the list under. */
  address: string;
  account: string;
  listHash: Uint8Array;
  version: number;
}

/** The change that logs `version` of `account`'s device list, whose hash is `listHash`. */
export function deviceListChange(
  account: string,
  listHash: Uint8Array,
  version: number,
): DeviceListChange {
  if (!Number.isSafeInteger(version) || version < 1) {
    throw new RangeError("a device list version is a positive integer");
  }
  return { kind: "device-list", address: deviceListSubject(account), account, listHash, version };
}

/** The commitment of a change's leaf under `opening` (throws for a change that cannot be logged). */
export function changeCommitment(change: KtChange, opening: Uint8Array): Uint8Array {
  switch (change.kind) {
    case "device-list":
      return deviceListCommitment(opening, change.account, change.listHash);
    case "identity":
      return leafCommitment(opening, change.address, change);
    case "tombstone":
      return leafCommitment(opening, change.address, undefined);
  }
}

/** A change with its address's VRF index, as the batch appends it. */
export type IndexedChange = KtChange & { vrf: AddressIndex };

/**
 * Where a change was logged. A change the log must not show as the latest is not appended (it
 * signs nothing): a device list version the log already shows, or shows a later version of; an
 * identity change that is no longer the directory's current state (see AppendInput's
 * `currentIdentities`). Such a change is `superseded`: `leafIndex` is then the address's latest
 * logged leaf (undefined while the log holds none) and `sth` the latest one as of the batch.
 */
export type Appended =
  | {
      leafIndex: number;
      /** The STH of the tree that ends with this leaf. */
      sth: SignedTreeHead;
      superseded?: undefined;
    }
  | { leafIndex: number | undefined; sth: SignedTreeHead; superseded: true };

/** The log's right edge as of a tree size, kept between batches to skip re-reading it. */
export interface RightEdge {
  size: number;
  nodes: readonly SubtreeNode[];
}

/** What one append batch needs besides the database. */
export interface AppendInput {
  signer: SthSigner;
  changes: readonly IndexedChange[];
  /** The leaves' timestamp, raised to the latest STH's if that is later. */
  timestamp: number;
  /** The right edge the previous batch left, if this instance appended last. */
  edge: RightEdge | undefined;
  newOpening?: () => Uint8Array;
  /**
   * The directory's current identities. With it, an identity or tombstone change is appended
   * only when it is still the current state of its address as the batch is sequenced: changes
   * committed on several instances may reach the log in another order than they committed, and
   * the leaf appended last must be the state committed last.
   */
  currentIdentities?: CurrentIdentities;
}

export interface AppendResult {
  appended: Appended[];
  edge: RightEdge;
}

/**
 * Appends on PostgreSQL, where several instances share the log: in one transaction under the
 * sequencer lock (sent with the reads), so instances append in turn instead of racing.
 */
export function appendLocked(db: Database, input: AppendInput): Promise<AppendResult> {
  return db.transaction(async (tx) => {
    const [, result] = await Promise.all([lockSequencer(tx), appendUnderLock(tx, input)]);
    return result;
  });
}

/** {@link appendBatch} in a transaction that holds the sequencer lock: its write cannot be refused. */
export async function appendUnderLock(tx: Database, input: AppendInput): Promise<AppendResult> {
  const result = await appendBatch(tx, input);
  if (result === undefined) throw new Error("the KT log moved under the sequencer lock");
  return result;
}

/**
 * Appends on the embedded database, whose one session every other statement waits for: no
 * transaction held across round trips, but a read (one snapshot), the batch made in memory and
 * one guarded write. Should another append or a refresh land in between, the batch is made again
 * in a transaction under the lock, which holds the session but cannot be refused.
 */
export async function appendGuarded(db: Database, input: AppendInput): Promise<AppendResult> {
  return (await appendBatch(db, input)) ?? appendLocked(db, { ...input, edge: undefined });
}

/**
 * Appends `changes`, one v2 leaf (a fresh opening for its commitment), one STH (signed for its
 * own size) and the index-map update per change, all written in one statement that writes
 * nothing unless the latest STH is still the one read (same size, same timestamp). Undefined when
 * it was not; the caller holds the sequencer lock, or reads again. Returns the results in order
 * and the new right edge.
 */
async function appendBatch(db: Database, input: AppendInput): Promise<AppendResult | undefined> {
  const { signer, changes, edge } = input;
  const keys = changes.map((change) => change.vrf.index);
  // The map is read as deep as the last known size suggests; any depth reads the right rows.
  const { sth: latest, mapRows } = await readAppendState(
    db,
    signer.logId,
    keys,
    shallowDepth((edge?.size ?? 0) + changes.length),
  );
  if (latest === undefined) throw new Error("the KT log is not initialized");
  const range = await rightEdge(db, latest.treeSize, edge);
  const timestampMs = Math.max(input.timestamp, latest.timestampMs);
  const newOpening = input.newOpening ?? randomOpening;

  const rows: AppendRows = { leaves: [], vrf: [], subtrees: [], mapRows: [], sths: [] };
  const written = new Map<string, MapRow>();
  const [logged, current] = await Promise.all([
    loggedListVersions(db, changes),
    currentIdentitiesOf(db, changes, input.currentIdentities),
  ]);
  const appended: Appended[] = [];
  // Superseded identity changes of addresses with no leaf earlier in the batch: their latest
  // leaf is read only if there are any, so a batch with none costs no read for it.
  const unplaced: Array<{ entry: Appended; address: string }> = [];
  for (const [i, change] of changes.entries()) {
    const last = logged.get(change.address);
    const stale =
      change.kind === "device-list"
        ? last?.version != null && last.version >= change.version
        : current !== undefined &&
          !sameIdentity(
            change.kind === "identity" ? change : undefined,
            current.get(change.address),
          );
    if (stale) {
      const entry: Appended = { leafIndex: last?.leafIndex, sth: latest, superseded: true };
      appended.push(entry);
      if (last === undefined) unplaced.push({ entry, address: change.address });
      continue;
    }
    logged.set(change.address, {
      leafIndex: range.size,
      version: change.kind === "device-list" ? change.version : null,
    });
    const opening = newOpening();
    const commitment = changeCommitment(change, opening);
    const leaf = encodeLeafV2({
      kind: change.kind === "tombstone" ? "tombstone" : "identity",
      index: change.vrf.index,
      commitment,
      timestampMs,
    });
    const hash = leafHash(leaf);
    const leafIndex = range.size;
    const kemKeyHash = change.kind === "identity" ? (change.kemKeyHash ?? null) : null;
    const listVersion = change.kind === "device-list" ? change.version : null;
    rows.leaves.push({
      leafIndex,
      address: change.address,
      leaf,
      opening,
      kemKeyHash,
      listVersion,
    });
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
  if (unplaced.length > 0) {
    const before = await readLatestLeaves(db, [...new Set(unplaced.map((u) => u.address))]);
    for (const { entry, address } of unplaced) entry.leafIndex = before.get(address)?.leafIndex;
  }
  const head = rows.sths[rows.sths.length - 1] ?? latest;
  for (const entry of appended) if (entry.superseded) entry.sth = head;
  const result = { appended, edge: { size: range.size, nodes: range.nodes() } };
  if (rows.leaves.length === 0) return result;
  return (await writeAppendRows(db, rows, latest)) ? result : undefined;
}

/** The latest logged leaf of each device list in the batch, with the version it logs. */
function loggedListVersions(
  db: Database,
  changes: readonly IndexedChange[],
): Promise<Map<string, { leafIndex: number; version: number | null }>> {
  const names = changes.flatMap((change) =>
    change.kind === "device-list" ? [change.address] : [],
  );
  return names.length === 0 ? Promise.resolve(new Map()) : readLatestLeaves(db, names);
}

/** The current identities of the batch's identity and tombstone changes' addresses. */
async function currentIdentitiesOf(
  db: Database,
  changes: readonly IndexedChange[],
  read: CurrentIdentities | undefined,
): Promise<ReadonlyMap<string, IdentityKeys> | undefined> {
  if (read === undefined) return undefined;
  const addresses = changes.flatMap((change) =>
    change.kind === "device-list" ? [] : [change.address],
  );
  return addresses.length === 0 ? new Map() : read(db, [...new Set(addresses)]);
}

/** A fresh 32-byte commitment opening. */
export function randomOpening(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(32));
}

/**
 * The latest STH and the map rows of `keys` read with it, in one snapshot; the few paths that go
 * deeper are read by a second statement, which may see a later log: then the STH read is no
 * longer the latest, and the guarded write refuses the batch.
 */
async function readAppendState(
  db: Database,
  logId: Uint8Array,
  keys: readonly Uint8Array[],
  depth: number,
): Promise<{ sth: SignedTreeHead | undefined; mapRows: Map<string, MapRow> }> {
  let sth: SignedTreeHead | undefined;
  let reads = 0;
  const mapRows = await readRowsFor(keys, depth, async (coords) => {
    if (reads++ > 0) return readMapRows(db, coords);
    const state = await readProofState(db, logId, [], coords);
    sth = state.sth;
    return state.mapRows;
  });
  return { sth, mapRows };
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
