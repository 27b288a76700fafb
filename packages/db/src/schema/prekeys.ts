import {
  bigint,
  bigserial,
  customType,
  index,
  pgTable,
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

/** Queue of one-time prekeys; `id` is the arrival order that bundles consume first. */
export const oneTimePrekeys = pgTable(
  "one_time_prekeys",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    address: text("address")
      .notNull()
      .references(() => identities.address, { onDelete: "cascade" }),
    keyId: bigint("key_id", { mode: "number" }).notNull(),
    publicKey: bytea("public_key").notNull(),
  },
  (table) => [
    uniqueIndex("one_time_prekeys_address_key_id_idx").on(table.address, table.keyId),
    index("one_time_prekeys_address_id_idx").on(table.address, table.id),
  ],
);
