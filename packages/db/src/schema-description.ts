import { sql } from "drizzle-orm";
import { executeRows } from "./rows.js";
import type { Database } from "./storage.js";

/** The public schema's tables, constraints, indexes, sequences and functions, in a stable order. */
export interface SchemaDescription {
  columns: Record<string, unknown>[];
  constraints: Record<string, unknown>[];
  indexes: Record<string, unknown>[];
  sequences: Record<string, unknown>[];
  functions: Record<string, unknown>[];
}

/** What two databases must agree on to have the same schema; for tests that compare them. */
export async function describeSchema(db: Database): Promise<SchemaDescription> {
  return {
    columns: await executeRows(
      db,
      sql`select table_name, column_name, ordinal_position, data_type, is_nullable, column_default
        from information_schema.columns where table_schema = 'public'
        order by table_name, ordinal_position`,
    ),
    constraints: await executeRows(
      db,
      sql`select conrelid::regclass::text as table_name, conname, pg_get_constraintdef(oid) as def
        from pg_constraint where connamespace = 'public'::regnamespace
        order by table_name, conname`,
    ),
    indexes: await executeRows(
      db,
      sql`select tablename, indexname, indexdef from pg_indexes where schemaname = 'public'
        order by tablename, indexname`,
    ),
    sequences: await executeRows(
      db,
      sql`select sequencename, data_type::text, start_value::text, increment_by::text
        from pg_sequences where schemaname = 'public' order by sequencename`,
    ),
    functions: await executeRows(
      db,
      sql`select oid::regprocedure::text as signature, pg_get_functiondef(oid) as def
        from pg_proc where pronamespace = 'public'::regnamespace order by signature`,
    ),
  };
}
