import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { executeRows } from "./rows.js";
import { openStorage, type Storage } from "./storage.js";
import {
  marksMigrations,
  notes,
  notesMigrations,
  probeMigrations,
} from "./test-support/packages.js";
import { createLegacyTestStorage, createTestDatabase, hasTestPostgres } from "./testing.js";

const opened: Storage[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

const kinds = hasTestPostgres() ? (["pglite", "postgres"] as const) : (["pglite"] as const);

function journal(storage: Storage) {
  return executeRows<{ package: string; migration: string; legacy_tag: string | null }>(
    storage.db,
    sql`select package, migration, legacy_tag from svc.migrations order by applied_at, package, migration`,
  );
}

async function tableExists(storage: Storage, name: string): Promise<boolean> {
  const [row] = await executeRows<{ exists: boolean }>(
    storage.db,
    sql`select to_regclass(${name}) is not null as exists`,
  );
  return row?.exists ?? false;
}

describe("migrations", () => {
  it("apply the packages in the order given, each package's files in name order", async () => {
    const storage = await openStorage({ migrations: [notesMigrations, marksMigrations] });
    opened.push(storage);
    expect(await journal(storage)).toEqual([
      { package: "marks", migration: "0000_marks", legacy_tag: null },
      { package: "notes", migration: "0000_notes", legacy_tag: null },
      { package: "notes", migration: "0001_notes_tag", legacy_tag: null },
    ]);
    await storage.db.insert(notes).values({ id: "n", body: new Uint8Array(1), tag: "t" });
    await storage.db.execute(sql`insert into marks (note_id, mark) values ('n', 'seen')`);
  });

  it("fail when a package comes before one its SQL refers to", async () => {
    await expect(openStorage({ migrations: [marksMigrations, notesMigrations] })).rejects.toThrow(
      /notes/,
    );
  });

  it("refuse two packages of one name and a legacy entry naming no migration", async () => {
    await expect(openStorage({ migrations: [notesMigrations, notesMigrations] })).rejects.toThrow(
      TypeError,
    );
    const typo = { ...probeMigrations, legacy: { "0009_probe": "0000_init" } } as const;
    await expect(openStorage({ migrations: [typo] })).rejects.toThrow(/0009_probe/);
  });
});

describe.each(kinds)("migrations on %s", (kind) => {
  it("record, without running them, those that repeat what drizzle's journal shows applied", async () => {
    const storage = await createLegacyTestStorage({
      kind,
      through: "0005_inbox_functions",
      fill: async () => {},
      migrations: [probeMigrations],
    });
    opened.push(storage);
    expect(await journal(storage)).toEqual([
      { package: "probe", migration: "0000_probe", legacy_tag: "0000_init" },
      { package: "probe", migration: "0001_probe", legacy_tag: null },
    ]);
    expect(await tableExists(storage, "probe_before")).toBe(false);
    expect(await tableExists(storage, "probe_after")).toBe(true);
  });
});

describe.runIf(hasTestPostgres())("migrations on postgres", () => {
  it("run once when several instances start at once", async () => {
    const database = await createTestDatabase();
    try {
      const migrations = [notesMigrations, marksMigrations];
      const storages = await Promise.all(
        Array.from({ length: 4 }, () => openStorage({ databaseUrl: database.url, migrations })),
      );
      opened.push(...storages.slice(1));
      expect(await journal(storages[0] as Storage)).toHaveLength(3);
      await (storages[0] as Storage).close();
    } finally {
      await Promise.all(opened.splice(0).map((s) => s.close()));
      await database.drop();
    }
  });

  it("leave nothing behind when one fails", async () => {
    const database = await createTestDatabase();
    try {
      // probe's tables are made, then marks fails: it refers to notes.
      const failing = [probeMigrations, marksMigrations];
      await expect(openStorage({ databaseUrl: database.url, migrations: failing })).rejects.toThrow(
        /notes/,
      );
      const storage = await openStorage({ databaseUrl: database.url, migrations: [] });
      opened.push(storage);
      expect(await journal(storage)).toEqual([]);
      expect(await tableExists(storage, "probe_before")).toBe(false);
      await storage.close();
      opened.length = 0;
    } finally {
      await database.drop();
    }
  });
});
