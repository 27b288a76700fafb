import { fileURLToPath } from "node:url";
import { bytea, type PackageMigrations } from "@svc/db";
import { bigint, index, pgTable, primaryKey, smallint, text } from "drizzle-orm/pg-core";

/** The SQL that makes these tables, for openStorage. */
export const ktLogMigrations: PackageMigrations = {
  name: "kt-log",
  folder: fileURLToPath(new URL("../migrations", import.meta.url)),
  legacy: { "0000_kt": "0003_kt", "0001_index_map_format": "0006_kt_index_map_format" },
};

/** The log's identity: one row, written at first start, so instances with another key refuse to run. */
export const ktLog = pgTable("kt_log", {
  id: smallint("id").primaryKey(),
  logId: bytea("log_id").notNull(),
  publicKey: bytea("public_key").notNull(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  /** Hashing of the index map (kt-log INDEX_MAP_FORMAT); logs created before it was recorded are 1. */
  indexMapFormat: smallint("index_map_format").notNull().default(1),
  /** The VRF public key of the map's keys; recorded from format 3 on. */
  vrfPublicKey: bytea("vrf_public_key"),
});

/** Log leaves in append order: `leafIndex` is the leaf's position in the Merkle tree. */
export const ktLeaves = pgTable(
  "kt_leaves",
  {
    leafIndex: bigint("leaf_index", { mode: "number" }).primaryKey(),
    address: text("address").notNull(),
    leaf: bytea("leaf").notNull(),
    /** The commitment's opening of a v2 leaf (shown only in proofs for its address). */
    opening: bytea("opening"),
    /**
     * SHA-256 of the identity's last-resort KEM public key, when its v2 leaf's commitment covers
     * one (shown in proofs for its address, beside the opening).
     */
    kemKeyHash: bytea("kem_key_hash"),
    /**
     * The device list version a device-list leaf logs (null for other leaves, and for those
     * logged before it was recorded): appends never put a version behind a later one's leaf.
     */
    listVersion: bigint("list_version", { mode: "number" }),
  },
  (table) => [index("kt_leaves_address_leaf_index_idx").on(table.address, table.leafIndex)],
);

/** Complete subtrees of the log: (level, nodeIndex) covers leaves [i * 2^level, (i + 1) * 2^level). */
export const ktSubtrees = pgTable(
  "kt_subtrees",
  {
    level: smallint("level").notNull(),
    nodeIndex: bigint("node_index", { mode: "number" }).notNull(),
    hash: bytea("hash").notNull(),
  },
  (table) => [primaryKey({ name: "kt_subtrees_pkey", columns: [table.level, table.nodeIndex] })],
);

/** One signed tree head per tree size, from 0. */
export const ktSths = pgTable("kt_sths", {
  treeSize: bigint("tree_size", { mode: "number" }).primaryKey(),
  timestampMs: bigint("timestamp_ms", { mode: "number" }).notNull(),
  rootHash: bytea("root_hash").notNull(),
  indexRoot: bytea("index_root").notNull(),
  signature: bytea("signature").notNull(),
});

/**
 * Nodes of the address index map as of the latest STH (hashing: @svc/merkle index-map.md). Rows
 * exist for nodes holding two or more keys, and for the top node of each single-key subtree,
 * which names its one key and value (`leafKey`, `leafValue`); every other node is the default.
 */
export const ktMapNodes = pgTable(
  "kt_map_nodes",
  {
    depth: smallint("depth").notNull(),
    prefix: bytea("prefix").notNull(),
    hash: bytea("hash").notNull(),
    leafKey: bytea("leaf_key"),
    leafValue: bytea("leaf_value"),
  },
  (table) => [primaryKey({ name: "kt_map_nodes_pkey", columns: [table.depth, table.prefix] })],
);

/**
 * Each witness's latest cosignature (its key name, the tree size and the signature line as the
 * witness answered it), so the checkpoint of that size is served with it.
 */
export const ktCosignatures = pgTable("kt_cosignatures", {
  witness: text("witness").primaryKey(),
  treeSize: bigint("tree_size", { mode: "number" }).notNull(),
  line: text("line").notNull(),
  cosignedAt: bigint("cosigned_at", { mode: "number" }).notNull(),
});

/** Each logged address's VRF index and proof, computed once (docs/protocol.md, private index). */
export const ktVrf = pgTable("kt_vrf", {
  address: text("address").primaryKey(),
  vrfIndex: bytea("vrf_index").notNull(),
  proof: bytea("proof").notNull(),
});
