import { count, sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { pipelinedTransaction } from "./pipelined-transaction.js";
import { executePreparedRows } from "./rows.js";
import type { Storage } from "./storage.js";
import { notes, notesMigrations } from "./test-support/packages.js";
import { createTestStorage, hasTestPostgres } from "./testing.js";

const opened: Storage[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

const kinds = hasTestPostgres() ? (["pglite", "postgres"] as const) : (["pglite"] as const);
const note = (id: string) => ({ id, body: new Uint8Array([1, 2, 3]) });
const insertNote = (id: string) => sql`insert into notes (id, body) values (${id}, '\\x010203')`;

async function open(kind: (typeof kinds)[number]): Promise<Storage> {
  const storage = await createTestStorage({ kind, migrations: [notesMigrations] });
  opened.push(storage);
  return storage;
}

async function ids(storage: Storage): Promise<string[]> {
  const rows = await storage.db.select({ id: notes.id }).from(notes).orderBy(notes.id);
  return rows.map((row) => row.id);
}

describe.each(kinds)("pipelinedTransaction on %s", (kind) => {
  it("runs work and its last statement in one transaction, then commits both", async () => {
    const storage = await open(kind);
    const txid = sql`select txid_current()::text as id`;
    const result = await pipelinedTransaction(storage.db, async (tx) => {
      // Sent before BEGIN is answered, and still inside the transaction it begins.
      const [first] = await executePreparedRows<{ id: string }>(tx, txid);
      await tx.insert(notes).values(note("a"));
      const [second] = await executePreparedRows<{ id: string }>(tx, txid);
      return {
        result: { same: first?.id === second?.id },
        last: insertNote("b"),
      };
    });
    expect(result).toEqual({ same: true });
    expect(await ids(storage)).toEqual(["a", "b"]);
  });

  it("commits nothing when the last statement fails, and the connection serves on", async () => {
    const storage = await open(kind);
    await storage.db.insert(notes).values(note("b"));
    const attempt = pipelinedTransaction(storage.db, async (tx) => {
      await tx.insert(notes).values(note("a"));
      // A duplicate key: the statement fails, and COMMIT after it ends the transaction unapplied.
      return { result: undefined, last: insertNote("b") };
    });
    await expect(attempt).rejects.toMatchObject({ code: "23505" });
    expect(await ids(storage)).toEqual(["b"]);
    await storage.db.insert(notes).values(note("c"));
    expect(await ids(storage)).toEqual(["b", "c"]);
  });

  it("rolls back what work wrote when work throws", async () => {
    const storage = await open(kind);
    const attempt = pipelinedTransaction(storage.db, async (tx) => {
      await tx.insert(notes).values(note("a"));
      throw new Error("changed my mind");
    });
    await expect(attempt).rejects.toThrow("changed my mind");
    expect(await ids(storage)).toEqual([]);
    await pipelinedTransaction(storage.db, async () => ({
      result: undefined,
      last: insertNote("d"),
    }));
    expect(await ids(storage)).toEqual(["d"]);
  });

  it("holds a transaction-scoped lock until the commit: concurrent read-then-writes serialize", async () => {
    const storage = await open(kind);
    // Each names its note after the count it read: two that read the same count would collide.
    const next = () =>
      pipelinedTransaction(storage.db, async (tx) => {
        await executePreparedRows(tx, sql`select pg_advisory_xact_lock(${42}::bigint)`);
        const [row] = await tx.select({ n: count() }).from(notes);
        const id = `n${String(row?.n ?? 0).padStart(2, "0")}`;
        return { result: id, last: insertNote(id) };
      });
    const written = await Promise.all(Array.from({ length: 12 }, next));
    expect(written.sort()).toEqual(
      Array.from({ length: 12 }, (_, i) => `n${`${i}`.padStart(2, "0")}`),
    );
    expect(await ids(storage)).toEqual(written);
  });
});
