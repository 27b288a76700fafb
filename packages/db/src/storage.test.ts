import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { executePreparedRows, preparedRows } from "./rows.js";
import { openStorage, type Storage } from "./storage.js";
import { notes, notesMigrations } from "./test-support/packages.js";
import { createTestStorage, hasTestPostgres } from "./testing.js";

const opened: Storage[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

const migrations = [notesMigrations];
const note = (id: string) => ({ id, body: new Uint8Array(32).fill(1) });

describe("embedded storage", () => {
  it("keeps rows across a restart of the data directory", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "svc-db-"));
    try {
      const first = await openStorage({ dataDir, migrations });
      await first.db.insert(notes).values(note("alice"));
      await first.close();
      const second = await openStorage({ dataDir, migrations });
      opened.push(second);
      const rows = await second.db.select().from(notes).where(eq(notes.id, "alice"));
      expect(rows).toHaveLength(1);
      expect(Uint8Array.from(rows[0]?.body ?? [])).toEqual(new Uint8Array(32).fill(1));
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe.runIf(hasTestPostgres())("postgres storage", () => {
  it("gives each test an empty migrated database", async () => {
    const storage = await createTestStorage({ kind: "postgres", migrations });
    opened.push(storage);
    await storage.db.insert(notes).values(note("bob"));
    const other = await createTestStorage({ kind: "postgres", migrations });
    opened.push(other);
    expect(await other.db.select().from(notes)).toEqual([]);
    await storage.ping();
  });
});

const kinds = hasTestPostgres() ? (["pglite", "postgres"] as const) : (["pglite"] as const);

describe.each(kinds)("bytea on %s", (kind) => {
  it("round-trips every byte value, empty values and views into larger buffers", async () => {
    const storage = await createTestStorage({ kind, migrations });
    opened.push(storage);
    const everyByte = Uint8Array.from({ length: 256 }, (_, i) => i);
    const view = new Uint8Array(64).fill(7).subarray(8, 40);
    view[0] = 0;
    await storage.db.insert(notes).values([
      { id: "every", body: everyByte },
      { id: "empty", body: new Uint8Array(0) },
      { id: "view", body: view },
    ]);
    // postgres.js answers Buffers: compare the bytes.
    const bytes = (value: Uint8Array | undefined) => Uint8Array.from(value ?? [9]);
    const rows = new Map((await storage.db.select().from(notes)).map((row) => [row.id, row.body]));
    expect(bytes(rows.get("every"))).toEqual(everyByte);
    expect(bytes(rows.get("empty"))).toEqual(new Uint8Array(0));
    expect(bytes(rows.get("view"))).toEqual(view.slice());
    const [raw] = await preparedRows<{ key: Uint8Array; same: boolean }>(
      storage.db,
      "select body as key, body = $1::bytea as same from notes where id = 'every'",
      [everyByte],
    );
    expect(bytes(raw?.key)).toEqual(everyByte);
    expect(raw?.same).toBe(true);
  });
});

describe.each(kinds)("executePreparedRows on %s", (kind) => {
  it("runs a prepared statement on the transaction's own connection, and outside one", async () => {
    const storage = await createTestStorage({ kind, migrations });
    opened.push(storage);
    const count = sql`select count(*)::int as n from notes where id = any(${sql.param(["a", "b"])}::text[])`;
    const seen = await storage.db.transaction(async (tx) => {
      await tx.insert(notes).values(note("a"));
      // Only the transaction's connection sees its uncommitted row.
      const [inside] = await executePreparedRows<{ n: number }>(tx, count);
      const prepared = await executePreparedRows<{ statement: string }>(
        tx,
        sql`select statement from pg_prepared_statements where statement like ${"%from notes where id = any%"}`,
      );
      return { n: inside?.n, prepared: prepared.length };
    });
    expect(seen).toEqual({ n: 1, prepared: 1 });
    await storage.db.insert(notes).values(note("b"));
    expect(await executePreparedRows(storage.db, count)).toEqual([{ n: 2 }]);
  });
});

describe.each(kinds)("notifications on %s", (kind) => {
  it("reach listeners in order, several in one call, and the listener hears of its subscription", async () => {
    const storage = await createTestStorage({ kind, migrations });
    opened.push(storage);
    const received: string[] = [];
    let subscribed = 0;
    const unlisten = await storage.listen(
      "svc_test",
      (payload) => received.push(payload),
      () => subscribed++,
    );
    await storage.notify("svc_test", ["hello"]);
    await expect.poll(() => received).toEqual(["hello"]);
    await storage.notify("svc_test", ["one", "two", "three"]);
    await expect.poll(() => received).toEqual(["hello", "one", "two", "three"]);
    expect(subscribed).toBe(1);
    await unlisten();
  });
});
