import { bytesToHex } from "@svc/canonical";
import { type Database, executePreparedRows, plainBytes } from "@svc/db";
import type { SignedTreeHead } from "@svc/kt-verify";
import {
  type MapNodeCoord,
  type MapRow,
  mapNodeKey,
  type SubtreeCoord,
  type SubtreeNode,
  subtreeKey,
} from "@svc/merkle";
import { and, asc, desc, eq, gte, inArray, lt, type SQL, sql } from "drizzle-orm";
import { ktLeaves, ktLog, ktSths } from "./schema.js";

/**
 * The log's SQL, one function per statement. Lists of rows travel as a few array parameters
 * (unnest), so every statement has a fixed text and is prepared once whatever the batch size:
 * the statements of an append run prepared (executePreparedRows), one exchange each with the
 * database instead of two, which shortens the time the sequencer lock is held. Byte arrays go
 * as hex text: not every driver sends bytea[] parameters.
 */

/** Where {@link withParams} puts a parameter in a statement's text. */
const PARAM = "\0";

/** `text` with its {@link PARAM} marks replaced by `params`, in order. */
function withParams(text: string, params: readonly unknown[]): SQL {
  const parts = text.split(PARAM);
  return sql.join(
    parts.flatMap((part, i) =>
      i < params.length ? [sql.raw(part), sql.param(params[i])] : [sql.raw(part)],
    ),
  );
}

/** ASCII "SVKT": the advisory lock that makes appends one sequence across instances. */
export const KT_SEQUENCER_LOCK = 0x5356_4b54;

export async function lockSequencer(db: Database): Promise<void> {
  await executePreparedRows(db, sql`select pg_advisory_xact_lock(${KT_SEQUENCER_LOCK}::bigint)`);
}

export interface StoredLogIdentity {
  logId: Uint8Array;
  publicKey: Uint8Array;
  indexMapFormat: number;
  vrfPublicKey: Uint8Array | null;
}

export async function readLogIdentity(db: Database): Promise<StoredLogIdentity | undefined> {
  const [row] = await db
    .select({
      logId: ktLog.logId,
      publicKey: ktLog.publicKey,
      indexMapFormat: ktLog.indexMapFormat,
      vrfPublicKey: ktLog.vrfPublicKey,
    })
    .from(ktLog)
    .where(eq(ktLog.id, 1));
  return (
    row && {
      ...row,
      logId: plainBytes(row.logId),
      publicKey: plainBytes(row.publicKey),
      vrfPublicKey: row.vrfPublicKey && plainBytes(row.vrfPublicKey),
    }
  );
}

/** Records that the log's map is now `indexMapFormat`, keyed under `vrfPublicKey`. */
export async function updateMapFormat(
  db: Database,
  indexMapFormat: number,
  vrfPublicKey: Uint8Array,
): Promise<void> {
  await db.update(ktLog).set({ indexMapFormat, vrfPublicKey }).where(eq(ktLog.id, 1));
}

export async function insertLogIdentity(
  db: Database,
  identity: StoredLogIdentity,
  createdAt: number,
): Promise<void> {
  await db.insert(ktLog).values({ id: 1, ...identity, createdAt });
}

/** The STH at `treeSize`, or the latest one when `treeSize` is undefined. */
export async function readSth(
  db: Database,
  logId: Uint8Array,
  treeSize?: number,
): Promise<SignedTreeHead | undefined> {
  const [row] = await executePreparedRows<SthRow>(
    db,
    treeSize === undefined
      ? sql.raw(LATEST_STH)
      : sql`${sql.raw(STH_COLUMNS)} where tree_size = ${treeSize}::bigint`,
  );
  return row && sthFromRow(row, logId);
}

export async function insertSth(db: Database, sth: SignedTreeHead): Promise<void> {
  await db.insert(ktSths).values(sthRow(sth));
}

/** Re-signs the STH of an unchanged size with a newer timestamp. */
export async function updateSth(db: Database, sth: SignedTreeHead): Promise<void> {
  await db
    .update(ktSths)
    .set({ timestampMs: sth.timestampMs, signature: sth.signature })
    .where(eq(ktSths.treeSize, sth.treeSize));
}

/**
 * Stored complete subtrees at `coords`, keyed by subtreeKey (missing ones are absent): one index
 * probe per coordinate, like {@link readMapRows}.
 */
export async function readSubtrees(
  db: Database,
  coords: readonly SubtreeCoord[],
): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  if (coords.length === 0) return out;
  const rows = await executePreparedRows<{
    level: number;
    node_index: number | string;
    hash: Uint8Array;
  }>(
    db,
    sql`select s.level, s.node_index, s.hash
      from unnest(${sql.param(coords.map((c) => c.level))}::smallint[],
        ${sql.param(coords.map((c) => c.index))}::bigint[]) as q(lv, i)
      cross join lateral (
        select level, node_index, hash from kt_subtrees
        where level = q.lv and node_index = q.i limit 1
      ) s`,
  );
  for (const row of rows)
    out.set(subtreeKey(row.level, Number(row.node_index)), plainBytes(row.hash));
  return out;
}

/**
 * The index-map rows at the coordinates of two arrays, `$depths` and `$prefixes` (hex): one index
 * probe per coordinate. As a join, the planner would rather scan the whole table, which grows
 * with the log while a proof's coordinates do not.
 */
const mapRowsAt = (depths: string, prefixes: string) => `
  select m.depth, m.prefix, m.hash, m.leaf_key, m.leaf_value
  from unnest(${depths}::smallint[], ${prefixes}::text[]) as q(d, p)
  cross join lateral (
    select depth, prefix, hash, leaf_key, leaf_value from kt_map_nodes
    where depth = q.d and prefix = decode(q.p, 'hex') limit 1
  ) m`;

interface MapRowRow {
  depth: number;
  prefix: Uint8Array;
  hash: Uint8Array;
  leaf_key: Uint8Array | null;
  leaf_value: Uint8Array | null;
}

/** Stored index-map rows at `coords`, keyed by mapNodeKey. Runs inside transactions too. */
export async function readMapRows(
  db: Database,
  coords: readonly MapNodeCoord[],
): Promise<Map<string, MapRow>> {
  const rows = await executePreparedRows<MapRowRow>(
    db,
    withParams(mapRowsAt(PARAM, PARAM), [
      coords.map((c) => c.depth),
      coords.map((c) => bytesToHex(c.prefix)),
    ]),
  );
  const out = new Map<string, MapRow>();
  for (const row of rows) {
    const prefix = plainBytes(row.prefix);
    out.set(mapNodeKey(row.depth, prefix), {
      depth: row.depth,
      prefix,
      hash: plainBytes(row.hash),
      leafKey: row.leaf_key && plainBytes(row.leaf_key),
      leafValue: row.leaf_value && plainBytes(row.leaf_value),
    });
  }
  return out;
}

export interface StoredLeaf {
  leafIndex: number;
  leaf: Uint8Array;
  /** A v2 leaf's commitment opening; null for a v1 leaf. */
  opening?: Uint8Array | null;
  /** The last-resort KEM key hash a v2 identity leaf's commitment covers; null when none. */
  kemKeyHash?: Uint8Array | null;
}

/** The latest leaf of `address` below `treeSize`, if any. */
export async function readLatestLeaf(
  db: Database,
  address: string,
  treeSize: number,
): Promise<StoredLeaf | undefined> {
  const [row] = await db
    .select({
      leafIndex: ktLeaves.leafIndex,
      leaf: ktLeaves.leaf,
      opening: ktLeaves.opening,
      kemKeyHash: ktLeaves.kemKeyHash,
    })
    .from(ktLeaves)
    .where(and(eq(ktLeaves.address, address), lt(ktLeaves.leafIndex, treeSize)))
    .orderBy(desc(ktLeaves.leafIndex))
    .limit(1);
  return (
    row && {
      leafIndex: row.leafIndex,
      leaf: plainBytes(row.leaf),
      opening: row.opening && plainBytes(row.opening),
      kemKeyHash: row.kemKeyHash && plainBytes(row.kemKeyHash),
    }
  );
}

/**
 * The latest leaf of each of `addresses` that has one, with the device list version it logs
 * (null for other leaves, and list leaves from before versions were kept).
 */
export async function readLatestLeaves(
  db: Database,
  addresses: readonly string[],
): Promise<Map<string, { leafIndex: number; version: number | null }>> {
  const rows = await db
    .selectDistinctOn([ktLeaves.address], {
      address: ktLeaves.address,
      leafIndex: ktLeaves.leafIndex,
      version: ktLeaves.listVersion,
    })
    .from(ktLeaves)
    .where(inArray(ktLeaves.address, [...addresses]))
    .orderBy(ktLeaves.address, desc(ktLeaves.leafIndex));
  return new Map(rows.map(({ address, ...logged }) => [address, logged]));
}

/** Leaves with index in [start, end), in order. */
export async function readLeaves(db: Database, start: number, end: number): Promise<Uint8Array[]> {
  const rows = await db
    .select({ leaf: ktLeaves.leaf })
    .from(ktLeaves)
    .where(and(gte(ktLeaves.leafIndex, start), lt(ktLeaves.leafIndex, end)))
    .orderBy(asc(ktLeaves.leafIndex));
  return rows.map((row) => plainBytes(row.leaf));
}

export interface AppendRows {
  leaves: Array<
    StoredLeaf & {
      address: string;
      opening: Uint8Array;
      kemKeyHash: Uint8Array | null;
      listVersion: number | null;
    }
  >;
  /** VRF indexes of the batch's addresses; those already stored are left as they are. */
  vrf: Array<{ address: string; index: Uint8Array; proof: Uint8Array }>;
  subtrees: SubtreeNode[];
  mapRows: MapRow[];
  sths: SignedTreeHead[];
}

/**
 * Everything one append batch persists, in one statement, written only if `base` (the STH the
 * batch was made on) is still the latest, with the same timestamp: false, and nothing written,
 * when another append or a refresh landed since it was read.
 */
export async function writeAppendRows(
  db: Database,
  rows: AppendRows,
  base: Pick<SignedTreeHead, "treeSize" | "timestampMs">,
): Promise<boolean> {
  const { leaves, vrf, subtrees, mapRows, sths } = rows;
  const hex = (values: Uint8Array[]) => sql.param(values.map(bytesToHex));
  const optionalHex = (values: Array<Uint8Array | null>) =>
    sql.param(values.map((v) => (v === null ? "" : bytesToHex(v))));
  const written = await executePreparedRows(
    db,
    sql`
    with base as (
      select 1 from kt_sths
      where tree_size = ${base.treeSize}::bigint and timestamp_ms = ${base.timestampMs}::bigint
        and not exists (select 1 from kt_sths where tree_size > ${base.treeSize}::bigint)
    ), leaves as (
      insert into kt_leaves (leaf_index, address, leaf, opening, kem_key_hash, list_version)
      select i, a, decode(l, 'hex'), decode(o, 'hex'), decode(nullif(k, ''), 'hex'), nullif(v, 0)
      from unnest(${sql.param(leaves.map((l) => l.leafIndex))}::bigint[],
        ${sql.param(leaves.map((l) => l.address))}::text[],
        ${hex(leaves.map((l) => l.leaf))}::text[],
        ${hex(leaves.map((l) => l.opening))}::text[],
        ${optionalHex(leaves.map((l) => l.kemKeyHash))}::text[],
        ${sql.param(leaves.map((l) => l.listVersion ?? 0))}::bigint[]) as t(i, a, l, o, k, v)
      where exists (select 1 from base)
    ), vrf as (
      insert into kt_vrf (address, vrf_index, proof)
      select distinct on (a) a, decode(x, 'hex'), decode(p, 'hex')
      from unnest(${sql.param(vrf.map((v) => v.address))}::text[],
        ${hex(vrf.map((v) => v.index))}::text[],
        ${hex(vrf.map((v) => v.proof))}::text[]) as t(a, x, p)
      where exists (select 1 from base)
      on conflict (address) do nothing
    ), subtrees as (
      insert into kt_subtrees (level, node_index, hash)
      select lv, i, decode(h, 'hex')
      from unnest(${sql.param(subtrees.map((s) => s.level))}::smallint[],
        ${sql.param(subtrees.map((s) => s.index))}::bigint[],
        ${hex(subtrees.map((s) => s.hash))}::text[]) as t(lv, i, h)
      where exists (select 1 from base)
    ), map_nodes as (
      insert into kt_map_nodes (depth, prefix, hash, leaf_key, leaf_value)
      select d, decode(p, 'hex'), decode(h, 'hex'), decode(nullif(k, ''), 'hex'),
        decode(nullif(v, ''), 'hex')
      from unnest(${sql.param(mapRows.map((r) => r.depth))}::smallint[],
        ${hex(mapRows.map((r) => r.prefix))}::text[],
        ${hex(mapRows.map((r) => r.hash))}::text[],
        ${optionalHex(mapRows.map((r) => r.leafKey))}::text[],
        ${optionalHex(mapRows.map((r) => r.leafValue))}::text[]) as t(d, p, h, k, v)
      where exists (select 1 from base)
      on conflict (depth, prefix) do update
        set hash = excluded.hash, leaf_key = excluded.leaf_key, leaf_value = excluded.leaf_value
    )
    insert into kt_sths (tree_size, timestamp_ms, root_hash, index_root, signature)
    select n, ts, decode(r, 'hex'), decode(x, 'hex'), decode(s, 'hex')
    from unnest(${sql.param(sths.map((s) => s.treeSize))}::bigint[],
      ${sql.param(sths.map((s) => s.timestampMs))}::bigint[],
      ${hex(sths.map((s) => s.rootHash))}::text[],
      ${hex(sths.map((s) => s.indexRoot))}::text[],
      ${hex(sths.map((s) => s.signature))}::text[]) as t(n, ts, r, x, s)
    where exists (select 1 from base)
    returning tree_size
  `,
  );
  return written.length > 0;
}

function sthRow(sth: SignedTreeHead) {
  return {
    treeSize: sth.treeSize,
    timestampMs: sth.timestampMs,
    rootHash: sth.rootHash,
    indexRoot: sth.indexRoot,
    signature: sth.signature,
  };
}

const STH_COLUMNS = `
  select tree_size, timestamp_ms, root_hash, index_root, signature from kt_sths`;
const LATEST_STH = `${STH_COLUMNS} order by tree_size desc limit 1`;

interface SthRow {
  tree_size: number | string;
  timestamp_ms: number | string;
  root_hash: Uint8Array;
  index_root: Uint8Array;
  signature: Uint8Array;
}

function sthFromRow(row: SthRow, logId: Uint8Array): SignedTreeHead {
  return {
    treeSize: Number(row.tree_size),
    timestampMs: Number(row.timestamp_ms),
    rootHash: plainBytes(row.root_hash),
    indexRoot: plainBytes(row.index_root),
    logId,
    signature: plainBytes(row.signature),
  };
}

/** What proofs read besides the (immutable) subtree hashes, as of one snapshot. */
export interface ProofState {
  sth: SignedTreeHead | undefined;
  /** Each address's latest leaf under `sth`, by the address's position in the request. */
  leaves: Map<number, StoredLeaf>;
  mapRows: Map<string, MapRow>;
}

const PROOF_STATE = `
  with sth as (${LATEST_STH})
  select 'sth' as kind, null::int as i, tree_size as n, timestamp_ms as m, root_hash as a,
    index_root as b, signature as c, null::bytea as d, null::bytea as e
  from sth
  union all
  select 'leaf', q.i, latest.leaf_index, null, latest.leaf, null, null, latest.opening,
    latest.kem_key_hash
  from unnest(${PARAM}::text[]) with ordinality as q(address, i)
  cross join lateral (
    select leaf_index, leaf, opening, kem_key_hash from kt_leaves
    where address = q.address and leaf_index < (select tree_size from sth)
    order by leaf_index desc limit 1
  ) latest
  union all
  select 'map', null, depth, null, prefix, hash, leaf_key, leaf_value, null
  from (${mapRowsAt(PARAM, PARAM)}) map_rows`;

interface ProofStateRow {
  kind: "sth" | "leaf" | "map";
  i: number | string | null;
  n: number | string;
  m: number | string | null;
  a: Uint8Array;
  b: Uint8Array | null;
  c: Uint8Array | null;
  d: Uint8Array | null;
  e: Uint8Array | null;
}

/**
 * The latest STH, the latest leaf under it of each of `addresses` and the index-map rows at
 * `coords`, in one statement: one round trip, and a single snapshot in which the map rows are
 * those the STH's indexRoot commits to (an append writes both in one statement).
 */
export async function readProofState(
  db: Database,
  logId: Uint8Array,
  addresses: readonly string[],
  coords: readonly MapNodeCoord[],
): Promise<ProofState> {
  const rows = await executePreparedRows<ProofStateRow>(
    db,
    withParams(PROOF_STATE, [
      addresses,
      coords.map((c) => c.depth),
      coords.map((c) => bytesToHex(c.prefix)),
    ]),
  );
  const state: ProofState = { sth: undefined, leaves: new Map(), mapRows: new Map() };
  for (const row of rows) {
    if (row.kind === "sth") {
      state.sth = {
        treeSize: Number(row.n),
        timestampMs: Number(row.m),
        rootHash: plainBytes(row.a),
        indexRoot: plainBytes(row.b as Uint8Array),
        logId,
        signature: plainBytes(row.c as Uint8Array),
      };
    } else if (row.kind === "leaf") {
      // `with ordinality` counts from 1.
      state.leaves.set(Number(row.i) - 1, {
        leafIndex: Number(row.n),
        leaf: plainBytes(row.a),
        opening: row.d && plainBytes(row.d),
        kemKeyHash: row.e && plainBytes(row.e),
      });
    } else {
      const prefix = plainBytes(row.a);
      const depth = Number(row.n);
      state.mapRows.set(mapNodeKey(depth, prefix), {
        depth,
        prefix,
        hash: plainBytes(row.b as Uint8Array),
        leafKey: row.c && plainBytes(row.c),
        leafValue: row.d && plainBytes(row.d),
      });
    }
  }
  return state;
}
