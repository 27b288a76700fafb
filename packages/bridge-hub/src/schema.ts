import { fileURLToPath } from "node:url";
import type { PackageMigrations } from "@svc/db";
import { index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/** The SQL that makes these tables, for openStorage. */
export const bridgeHubMigrations: PackageMigrations = {
  name: "bridge-hub",
  folder: fileURLToPath(new URL("../migrations", import.meta.url)),
  legacy: { "0000_bridges": "0002_bridges" },
};

/**
 * One row per running server instance that holds push bridges; `heartbeatAt` (database clock) is
 * refreshed periodically. An instance whose heartbeat is older than the expiry is dead: another
 * instance reaps its presence rows.
 */
export const bridgeInstances = pgTable("bridge_instances", {
  instanceId: text("instance_id").primaryKey(),
  heartbeatAt: timestamp("heartbeat_at", { withTimezone: true, mode: "date" })
    .notNull()
    .defaultNow(),
});

/**
 * Live SSE/WebSocket bridges per (instance, address); a row exists only while its count is > 0.
 * An address is connected when the sum over all rows of the address is > 0.
 */
export const bridgePresence = pgTable(
  "bridge_presence",
  {
    instanceId: text("instance_id").notNull(),
    address: text("address").notNull(),
    bridges: integer("bridges").notNull(),
  },
  (table) => [
    primaryKey({
      name: "bridge_presence_instance_id_address_pk",
      columns: [table.instanceId, table.address],
    }),
    index("bridge_presence_address_idx").on(table.address),
  ],
);
