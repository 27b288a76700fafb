import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type postgres from "postgres";
import { appliedLegacyTags, type LegacyTag } from "./legacy.js";

/** What a domain package exports for its tables: the app hands every package's to openStorage. */
export interface PackageMigrations {
  /** The package's name in the journal (svc.migrations); unique among those migrated together. */
  readonly name: string;
  /** Absolute path of the package's `NNNN_<what>.sql` files, applied in name order. */
  readonly folder: string;
  /**
   * Migrations (file name without `.sql`) that repeat one of @svc/db's combined drizzle
   * migrations of 4.7 and before: on a database drizzle took past that one, they are recorded as
   * applied and not run.
   */
  readonly legacy?: Readonly<Record<string, LegacyTag>>;
}

const JOURNAL = `
  create schema if not exists svc;
  create table if not exists svc.migrations (
    package text not null,
    migration text not null,
    applied_at timestamptz not null default now(),
    legacy_tag text,
    primary key (package, migration)
  )`;

/**
 * Applies, in one transaction, every migration that the journal does not list yet: the packages in
 * the order given (a package's SQL may refer only to tables of those before it), each package's
 * files in name order. Concurrent callers on one server must hold a lock around it.
 */
export async function applyMigrations(
  client: postgres.Sql,
  packages: readonly PackageMigrations[],
): Promise<void> {
  const pending = await Promise.all(checkedPackages(packages).map(readPackage));
  await client.begin(async (tx) => {
    await tx.unsafe(JOURNAL);
    const journal = await tx<{ package: string; migration: string }[]>`
      select package, migration from svc.migrations`;
    const applied = new Set(journal.map((row) => `${row.package}/${row.migration}`));
    const legacyApplied = await appliedLegacyTags(tx);
    for (const { name, legacy, files } of pending) {
      for (const { migration, text } of files) {
        if (applied.has(`${name}/${migration}`)) continue;
        const tag = legacy?.[migration];
        const adopted = tag !== undefined && legacyApplied.has(tag);
        if (!adopted) await tx.unsafe(text);
        await tx`insert into svc.migrations (package, migration, legacy_tag)
          values (${name}, ${migration}, ${adopted ? tag : null})`;
      }
    }
  });
}

function checkedPackages(packages: readonly PackageMigrations[]): readonly PackageMigrations[] {
  const names = new Set<string>();
  for (const { name } of packages) {
    if (names.has(name)) throw new TypeError(`migrations: two packages are named "${name}"`);
    names.add(name);
  }
  return packages;
}

async function readPackage(migrations: PackageMigrations) {
  const sqlFiles = (await readdir(migrations.folder)).filter((file) => file.endsWith(".sql"));
  const files = await Promise.all(
    sqlFiles.sort().map(async (file) => ({
      migration: file.slice(0, -".sql".length),
      text: await readFile(join(migrations.folder, file), "utf8"),
    })),
  );
  for (const migration of Object.keys(migrations.legacy ?? {})) {
    if (!files.some((file) => file.migration === migration)) {
      throw new TypeError(`migrations: ${migrations.name} has no migration "${migration}"`);
    }
  }
  return { ...migrations, files };
}
