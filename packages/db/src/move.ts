import { existsSync } from "node:fs";
import { join } from "node:path";
import { type SQL, sql } from "drizzle-orm";
import { MoveRefused } from "./errors.js";
import type { PackageMigrations } from "./migrations.js";
import { executeRows } from "./rows.js";
import { type Database, openStorage, type Storage } from "./storage.js";

export interface MoveOptions {
  /** The server's SVC_DATA_DIR: the embedded database is its `pglite` folder. */
  dataDir: string;
  /** The PostgreSQL database to fill; migrated first, and it must hold no rows. */
  databaseUrl: string;
  /** The schema of both: the migrations the server opens its storage with. */
  migrations: readonly PackageMigrations[];
}

/** Rows copied per table, in the order they were copied. */
export type MoveReport = Array<{ table: string; rows: number }>;

/** A fetch whose rows come to more JSON than this halves the next one (blobs can be large). */
const BATCH_JSON_CHARS = 8 * 1024 * 1024;
const MAX_FETCH_ROWS = 1000;

/**
 * Copies every table of the embedded database under `dataDir` (a server's SVC_DATA_DIR) into the
 * PostgreSQL database at `databaseUrl`, in one transaction on the target: after both are migrated to this version's
 * schema, the target's tables are locked and must be empty, the rows go over parents before
 * children, sequences follow, and each table's row count must match the source's before commit.
 * A directory the server still has open is refused.
 */
export async function moveEmbeddedDatabase(options: MoveOptions): Promise<MoveReport> {
  const pgliteDir = join(options.dataDir, "pglite");
  if (!existsSync(join(pgliteDir, "PG_VERSION"))) {
    const hint = existsSync(join(options.dataDir, "PG_VERSION"))
      ? ": give the server's SVC_DATA_DIR, the folder above it"
      : "";
    throw new MoveRefused("SOURCE_MISSING", `no embedded database in ${pgliteDir}${hint}`);
  }
  // PGlite writes this file while it has the directory open and removes it on a clean close.
  if (existsSync(join(pgliteDir, "postmaster.pid"))) {
    throw new MoveRefused(
      "SOURCE_IN_USE",
      `${pgliteDir} is open (postmaster.pid): stop the server first; after a crash, start and stop it once`,
    );
  }
  const { migrations } = options;
  const source = await openStorage({ dataDir: options.dataDir, migrations });
  let target: Storage | undefined;
  try {
    target = await openStorage({ databaseUrl: options.databaseUrl, poolSize: 1, migrations });
    return await copyDatabase(source.db, target.db);
  } finally {
    await target?.close();
    await source.close();
  }
}

async function copyDatabase(source: Database, target: Database): Promise<MoveReport> {
  const tables = await tablesInDependencyOrder(target);
  const known = new Set(tables);
  for (const table of await tablesInDependencyOrder(source)) {
    if (!known.has(table)) {
      throw new MoveRefused("UNKNOWN_TABLE", `the source has a table "${table}" the target lacks`);
    }
  }
  return target.transaction(async (tx) => {
    // Locked for the whole move: a server started on the target meanwhile waits for the commit.
    await tx.execute(sql`lock table ${tableList(tables)} in access exclusive mode`);
    for (const table of tables) {
      const [row] = await executeRows<{ filled: boolean }>(
        tx,
        sql`select exists (select from ${sql.identifier(table)}) as filled`,
      );
      if (row?.filled) {
        throw new MoveRefused("TARGET_NOT_EMPTY", `the target's table "${table}" holds rows`);
      }
    }
    return source.transaction(async (from) => {
      const report: MoveReport = [];
      for (const table of tables) report.push({ table, rows: await copyTable(from, tx, table) });
      await copySequences(from, tx);
      for (const { table, rows } of report) {
        const [expected, copied] = [await countRows(from, table), await countRows(tx, table)];
        if (expected !== rows || copied !== rows) {
          throw new MoveRefused(
            "COUNT_MISMATCH",
            `"${table}": ${expected} rows in the source, ${rows} read, ${copied} in the target`,
          );
        }
      }
      return report;
    });
  });
}

/**
 * Rows travel as row_to_json text and come back through json_populate_recordset, so every value
 * goes through PostgreSQL's own text forms (bytea, bigint, timestamps) and never through
 * JavaScript numbers or dates.
 */
async function copyTable(from: Database, to: Database, table: string): Promise<number> {
  await from.execute(
    sql`declare svc_move no scroll cursor for
      select row_to_json(t)::text as json from ${sql.identifier(table)} as t`,
  );
  let copied = 0;
  let fetchRows = MAX_FETCH_ROWS;
  for (;;) {
    const rows = await executeRows<{ json: string }>(
      from,
      sql.raw(`fetch ${fetchRows} from svc_move`),
    );
    if (rows.length === 0) break;
    const batch = `[${rows.map((row) => row.json).join(",")}]`;
    await to.execute(
      sql`insert into ${sql.identifier(table)}
        select * from json_populate_recordset(null::${sql.identifier(table)}, ${batch}::json)`,
    );
    copied += rows.length;
    fetchRows =
      batch.length > BATCH_JSON_CHARS
        ? Math.max(1, fetchRows >> 1)
        : Math.min(MAX_FETCH_ROWS, fetchRows * 2);
  }
  await from.execute(sql`close svc_move`);
  return copied;
}

/** Each sequence of the public schema takes the source's position (e.g. one-time prekey ids). */
async function copySequences(from: Database, to: Database): Promise<void> {
  const sequences = await executeRows<{ name: string }>(
    from,
    sql`select c.relname::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind = 'S' order by 1`,
  );
  for (const { name } of sequences) {
    const [state] = await executeRows<{ lastValue: string; isCalled: boolean }>(
      from,
      sql`select last_value::text as "lastValue", is_called as "isCalled"
        from ${sql.identifier(name)}`,
    );
    if (!state) continue;
    await to.execute(
      sql`select setval(${`public.${quoteIdent(name)}`}::regclass, ${state.lastValue}::bigint,
        ${state.isCalled})`,
    );
  }
}

/** The public schema's tables, each after the tables its foreign keys refer to. */
async function tablesInDependencyOrder(db: Database): Promise<string[]> {
  const rows = await executeRows<{ name: string; parents: string[] }>(
    db,
    sql`select c.relname::text as name,
        coalesce(array_agg(p.relname::text) filter (where p.oid <> c.oid), '{}'::text[]) as parents
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      left join pg_constraint f on f.conrelid = c.oid and f.contype = 'f'
      left join pg_class p on p.oid = f.confrelid
      where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
      group by c.oid, c.relname order by c.relname`,
  );
  const ordered: string[] = [];
  let waiting = rows;
  while (waiting.length > 0) {
    const ready = waiting.filter((row) => row.parents.every((parent) => ordered.includes(parent)));
    if (ready.length === 0) throw new Error("the tables' foreign keys form a cycle");
    ordered.push(...ready.map((row) => row.name));
    waiting = waiting.filter((row) => !ready.includes(row));
  }
  return ordered;
}

async function countRows(db: Database, table: string): Promise<number> {
  const [row] = await executeRows<{ count: string }>(
    db,
    sql`select count(*)::text as count from ${sql.identifier(table)}`,
  );
  return Number(row?.count);
}

const tableList = (tables: string[]): SQL =>
  sql.join(
    tables.map((table) => sql.identifier(table)),
    sql`, `,
  );

const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;
