// @ts-check
/** How PostgreSQL runs embedded: pglite-thread.js serves with it, pglite-create.js creates with it. */
import { PGlite } from "@electric-sql/pglite";

/**
 * PostgreSQL's defaults that cost a single-session server dearly: creating each new 16 MiB WAL
 * file wrote it full of zeros first, stopping every statement for ~60 ms (no other process can do
 * it ahead of time here). Shared memory is allocated, and touched, whole at start inside the
 * WebAssembly heap, where it stays resident: the default 128 MiB of shared buffers (and 4 MiB of
 * WAL buffers, 1/32 of them) were most of the server's memory, and sizing locks and process slots
 * for 100 connections cost more on top, for a database with one session. Pages the buffers no
 * longer hold are still in the operating system's file cache, a read away.
 */
const SETTINGS = ["wal_init_zero=off", "shared_buffers=8MB", "max_connections=1"];

/** PGlite's own start parameters, then SETTINGS. */
export function startParams() {
  return [...PGlite.defaultStartParams, ...SETTINGS.flatMap((setting) => ["-c", setting])];
}
