import { fileURLToPath } from "node:url";
import { pgTable, text } from "drizzle-orm/pg-core";
import { bytea } from "../bytea.js";
import type { PackageMigrations } from "../migrations.js";

/** Packages of the storage tests: `marks` refers to `notes`, so it migrates after it. */
export const notesMigrations: PackageMigrations = {
  name: "notes",
  folder: fileURLToPath(new URL("./notes", import.meta.url)),
};

export const marksMigrations: PackageMigrations = {
  name: "marks",
  folder: fileURLToPath(new URL("./marks", import.meta.url)),
};

/** Repeats the first combined migration (recorded from drizzle's journal), then the eighth. */
export const probeMigrations: PackageMigrations = {
  name: "probe",
  folder: fileURLToPath(new URL("./probe", import.meta.url)),
  legacy: { "0000_probe": "0000_init", "0001_probe": "0007_inbox_deposit_previous" },
};

export const notes = pgTable("notes", {
  id: text("id").primaryKey(),
  body: bytea("body").notNull(),
  tag: text("tag"),
});
