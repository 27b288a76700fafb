import { fileURLToPath } from "node:url";
import { bytea, type PackageMigrations } from "@svc/db";
import type { ChunkAead, StreamStatus } from "@svc/protocol/transfer";
import { sql } from "drizzle-orm";
import { bigint, check, integer, numeric, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/** The SQL that makes these tables, for openStorage; refers to no other package's tables. */
export const transferMigrations: PackageMigrations = {
  name: "transfer-peer",
  folder: fileURLToPath(new URL("../migrations", import.meta.url)),
};

/** One row per stream a receiver was asked to start. */
export const transferStreams = pgTable(
  "transfer_streams",
  {
    streamId: text("stream_id").primaryKey(),
    sender: text("sender").notNull(),
    name: text("name").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    /** Null for a version 2 stream: its SHA-256 comes with the finish. */
    sha256: text("sha256"),
    chunkBytes: integer("chunk_bytes").notNull(),
    key: bytea("key").notNull(),
    status: text("status").$type<StreamStatus>().notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
    /** The transfer wire version (added by 0001, hence last): 1 for the rows from before it. */
    version: integer("version").$type<1 | 2>().notNull().default(1),
    /** The chunks' AEAD: always ChaCha20-Poly1305 for version 1, the start's choice for 2. */
    cipher: text("cipher").$type<ChunkAead>().notNull().default("chacha20-poly1305"),
  },
  (table) => [
    check(
      "transfer_streams_status_check",
      sql`${table.status} in ('active', 'paused', 'finished', 'aborted')`,
    ),
    check("transfer_streams_version_check", sql`${table.version} in (1, 2)`),
    check(
      "transfer_streams_cipher_check",
      sql`${table.cipher} in ('chacha20-poly1305', 'aes-256-gcm') and (${table.version} = 2 or ${table.cipher} = 'chacha20-poly1305')`,
    ),
    check(
      "transfer_streams_sha256_check",
      sql`${table.version} = 2 or ${table.sha256} is not null`,
    ),
  ],
);

/**
 * One row per lane of a stream: lanes advance in parallel, each on its own row. A u64 seq does
 * not fit bigint, hence numeric(20, 0), read and written as decimal text.
 */
export const transferLanes = pgTable(
  "transfer_lanes",
  {
    streamId: text("stream_id")
      .notNull()
      .references(() => transferStreams.streamId, { onDelete: "cascade" }),
    laneId: integer("lane_id").notNull(),
    lastSeqAcked: numeric("last_seq_acked", { precision: 20, scale: 0 }).notNull().default("0"),
  },
  (table) => [
    primaryKey({
      name: "transfer_lanes_stream_id_lane_id_pk",
      columns: [table.streamId, table.laneId],
    }),
    check(
      "transfer_lanes_last_seq_acked_check",
      sql`${table.lastSeqAcked} between 0 and 18446744073709551615`,
    ),
  ],
);
