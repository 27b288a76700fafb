import { fileURLToPath } from "node:url";
import { bytea, type PackageMigrations } from "@svc/db";
import { bigint, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/** The SQL that makes these tables, for openStorage. */
export const pushMigrations: PackageMigrations = {
  name: "push",
  folder: fileURLToPath(new URL("../migrations", import.meta.url)),
};

/**
 * The PL/pgSQL function of migration 0001 (address, now, coalesceMs) → boolean: whether a
 * deposit to the address may cause a wake-up (null: the address has no subscription). The inbox's
 * deposit statement calls it by this name.
 */
export const WAKE_DUE_FUNCTION = "svc_push_wake_due";

/**
 * Each address's Web Push subscriptions, one per endpoint. `woken_at` is when the last wake-up
 * was claimed (null: none since the address last fetched its inbox): the claim that sets it is
 * what coalesces wake-ups across every instance sharing the database.
 */
export const pushSubscriptions = pgTable(
  "push_subscriptions",
  {
    address: text("address").notNull(),
    endpoint: text("endpoint").notNull(),
    /** The user agent's uncompressed P-256 key, 65 bytes. */
    p256dh: bytea("p256dh").notNull(),
    /** Its authentication secret, 16 bytes. */
    auth: bytea("auth").notNull(),
    /** The subscription's expirationTime (epoch ms), if the user agent gave one. */
    expiresAt: bigint("expires_at", { mode: "number" }),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
    wokenAt: bigint("woken_at", { mode: "number" }),
  },
  (table) => [
    primaryKey({
      name: "push_subscriptions_address_endpoint_pk",
      columns: [table.address, table.endpoint],
    }),
  ],
);
