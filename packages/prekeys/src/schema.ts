import { fileURLToPath } from "node:url";
import { bytea, type PackageMigrations } from "@svc/db";
import { bigint, bigserial, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";

/** The SQL that makes these tables, for openStorage. */
export const prekeysMigrations: PackageMigrations = {
  name: "prekeys",
  folder: fileURLToPath(new URL("../migrations", import.meta.url)),
  legacy: { "0000_identities": "0000_init", "0001_queue_pk": "0004_prekey_queue_pk" },
};

export const identities = pgTable("identities", {
  address: text("address").primaryKey(),
  signingKey: bytea("signing_key").notNull(),
  dhKey: bytea("dh_key").notNull(),
  signedPreKeyId: bigint("signed_prekey_id", { mode: "number" }).notNull(),
  signedPreKey: bytea("signed_prekey").notNull(),
  signedPreKeySignature: bytea("signed_prekey_signature").notNull(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  /** The last-resort ML-KEM-1024 prekey: all three set, or none (a classic, X3DH-only identity). */
  kemLastResortKeyId: bigint("kem_last_resort_key_id", { mode: "number" }),
  kemLastResortKey: bytea("kem_last_resort_key"),
  kemLastResortSignature: bytea("kem_last_resort_signature"),
});

/**
 * Queue of one-time prekeys; `id` is the arrival order that bundles consume first. The primary key
 * leads with the address so that the oldest entry of one address is always found by one index
 * descent: with `id` alone as the key, the planner may walk the id index and filter by address,
 * stepping over every other address's entries and every popped one not yet vacuumed.
 */
export const oneTimePrekeys = pgTable(
  "one_time_prekeys",
  {
    id: bigserial("id", { mode: "number" }).notNull(),
    address: text("address")
      .notNull()
      .references(() => identities.address, { onDelete: "cascade" }),
    keyId: bigint("key_id", { mode: "number" }).notNull(),
    publicKey: bytea("public_key").notNull(),
  },
  (table) => [
    uniqueIndex("one_time_prekeys_address_key_id_idx").on(table.address, table.keyId),
    primaryKey({ name: "one_time_prekeys_address_id_pk", columns: [table.address, table.id] }),
  ],
);

/** Queue of one-time ML-KEM-1024 prekeys, laid out and consumed like `one_time_prekeys`. */
export const oneTimeKemPrekeys = pgTable(
  "one_time_kem_prekeys",
  {
    id: bigserial("id", { mode: "number" }).notNull(),
    address: text("address")
      .notNull()
      .references(() => identities.address, { onDelete: "cascade" }),
    keyId: bigint("key_id", { mode: "number" }).notNull(),
    publicKey: bytea("public_key").notNull(),
    signature: bytea("signature").notNull(),
  },
  (table) => [
    uniqueIndex("one_time_kem_prekeys_address_key_id_idx").on(table.address, table.keyId),
    primaryKey({ name: "one_time_kem_prekeys_address_id_pk", columns: [table.address, table.id] }),
  ],
);
