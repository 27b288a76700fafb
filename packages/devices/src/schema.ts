import { fileURLToPath } from "node:url";
import { bytea, type PackageMigrations } from "@svc/db";
import { bigint, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/** The SQL that makes these tables, for openStorage. */
export const devicesMigrations: PackageMigrations = {
  name: "devices",
  folder: fileURLToPath(new URL("../migrations", import.meta.url)),
};

/**
 * Every version of every account's device list: clients fetch the versions between the one they
 * remember and the latest to check the chain. The key makes one writer of each version win.
 */
export const deviceLists = pgTable(
  "device_lists",
  {
    account: text("account").notNull(),
    version: bigint("version", { mode: "number" }).notNull(),
    /** The signed bytes (deviceListMessage). */
    message: bytea("message").notNull(),
    signature: bytea("signature").notNull(),
    listHash: bytea("list_hash").notNull(),
    signer: text("signer").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (table) => [
    primaryKey({
      name: "device_lists_account_version_pk",
      columns: [table.account, table.version],
    }),
  ],
);
