import {
  bigint,
  bigserial,
  customType,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";

export const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => "bytea",
});

export const identities = pgTable("identities", {
  address: text("address").primaryKey(),
  signingKey: bytea("signing_key").notNull(),
  dhKey: bytea("dh_key").notNull(),
  signedPreKeyId: bigint("signed_prekey_id", { mode: "number" }).notNull(),
  signedPreKey: bytea("signed_prekey").notNull(),
  signedPreKeySignature: bytea("signed_prekey_signature").notNull(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
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
    primaryKey({ columns: [table.address, table.id] }),
  ],
);
