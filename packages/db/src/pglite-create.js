// @ts-check
/**
 * Creates the embedded database in the directory argv[2] (PGlite runs initdb), then ends:
 * pglite-channel.ts runs it as a process of its own before the database's thread starts.
 * initdb runs a second PostgreSQL beside the first, and the hundreds of MiB both touch, freed,
 * would otherwise stay with the server's process for good.
 */
import { PGlite } from "@electric-sql/pglite";
import { startParams } from "./pglite-settings.js";

try {
  const db = await PGlite.create({ dataDir: process.argv[2], startParams: startParams() });
  await db.close();
} catch (error) {
  // One line for the server to quote: the reason, not a stack trace.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
