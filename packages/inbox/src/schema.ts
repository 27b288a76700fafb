import { fileURLToPath } from "node:url";
import { bytea, type PackageMigrations } from "@svc/db";
import {
  bigint,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";

/** The SQL that makes these tables and the inbox functions, for openStorage. */
export const inboxMigrations: PackageMigrations = {
  name: "inbox",
  folder: fileURLToPath(new URL("../migrations", import.meta.url)),
  legacy: {
    "0000_registrations_blobs": "0000_init",
    "0001_server_secrets": "0001_inbox_server_secrets",
    "0002_inbox_functions": "0005_inbox_functions",
    "0003_deposit_previous": "0007_inbox_deposit_previous",
    "0004_deposit_notify": "0008_inbox_deposit_notify",
  },
};

export const inboxRegistrations = pgTable("inbox_registrations", {
  address: text("address").primaryKey(),
  signingKey: bytea("signing_key").notNull(),
  /** Last receivedAt handed out; the next deposit gets max(now, last + 1). */
  lastReceivedAt: bigint("last_received_at", { mode: "number" }).notNull().default(0),
  /**
   * Blob rows stored for the address, expired or not: an upper bound of the unexpired count that
   * spares a deposit from counting the queue until it nears the quota. Kept exact by the inbox
   * functions (migrations/0002_inbox_functions.sql), the only writers of inbox_blobs.
   */
  storedBlobs: integer("stored_blobs").notNull().default(0),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
});

export const inboxBlobs = pgTable(
  "inbox_blobs",
  {
    address: text("address")
      .notNull()
      .references(() => inboxRegistrations.address, { onDelete: "cascade" }),
    msgId: text("msg_id").notNull(),
    ciphertext: bytea("ciphertext").notNull(),
    senderKey: bytea("sender_key").notNull(),
    sender: text("sender").notNull(),
    receivedAt: bigint("received_at", { mode: "number" }).notNull(),
    expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
  },
  (table) => [
    primaryKey({ name: "inbox_blobs_address_msg_id_pk", columns: [table.address, table.msgId] }),
    uniqueIndex("inbox_blobs_address_received_at_idx").on(table.address, table.receivedAt),
    index("inbox_blobs_expires_at_idx").on(table.expiresAt),
  ],
);

/**
 * Random secrets shared by every server instance on this database (e.g. the key that makes inbox
 * fetch cursors tamper-evident: a cursor issued by one instance must verify on another).
 */
export const serverSecrets = pgTable("server_secrets", {
  name: text("name").primaryKey(),
  secret: bytea("secret").notNull(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
});
