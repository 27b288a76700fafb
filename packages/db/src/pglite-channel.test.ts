import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { type PgliteThread, startPgliteThread } from "./pglite-channel.js";
import { preparedRows } from "./rows.js";
import { pgliteStorage, type Storage } from "./storage.js";

const opened: Array<Storage | PgliteThread> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

async function storageOver(channelBytes: number): Promise<Storage> {
  const storage = await pgliteStorage(await startPgliteThread({ channelBytes }));
  opened.push(storage);
  return storage;
}

describe("embedded database thread", () => {
  it("carries requests and answers longer than the shared area in pieces", async () => {
    const storage = await storageOver(64);
    const bytes = Uint8Array.from({ length: 10_000 }, (_, i) => (i * 7) % 256);
    const [row] = await preparedRows<{ echoed: Uint8Array; text: string }>(
      storage.db,
      "select $1::bytea as echoed, repeat('x', 5000) as text",
      [bytes],
    );
    expect(Uint8Array.from(row?.echoed ?? [])).toEqual(bytes);
    expect(row?.text).toBe("x".repeat(5000));
  });

  it("answers statement errors as PostgreSQL errors, and goes on serving", async () => {
    const storage = await storageOver(64);
    await expect(preparedRows(storage.db, "select 1/0", [])).rejects.toMatchObject({
      code: "22012",
    });
    await expect(preparedRows(storage.db, "select 2 as two", [])).resolves.toEqual([{ two: 2 }]);
  });

  it("keeps a transaction to itself: other statements wait for its end", async () => {
    const storage = await storageOver(1024);
    await preparedRows(storage.db, "create table t (n int)", []);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const transaction = storage.db.transaction(async (tx) => {
      await tx.execute(sql`insert into t values (1)`);
      await held;
      throw new Error("roll back");
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const outside = preparedRows<{ n: number }>(storage.db, "select count(*)::int as n from t", []);
    release();
    await expect(transaction).rejects.toThrow("roll back");
    expect(await outside).toEqual([{ n: 0 }]);
  });

  it("keeps the server's thread turning while a statement runs", async () => {
    const storage = await storageOver(1024);
    let slept = false;
    const sleeping = preparedRows(storage.db, "select pg_sleep(5)", []).then(() => {
      slept = true;
    });
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(performance.now() - started).toBeLessThan(500);
    expect(slept).toBe(false);
    await sleeping;
  });

  it("takes a dump asked for while a statement runs once the statement is done", async () => {
    const thread = await startPgliteThread();
    opened.push(thread);
    const storage = await pgliteStorage(thread);
    await preparedRows(storage.db, "create table t (n int)", []);
    const inserting = preparedRows(storage.db, "insert into t select 1 from pg_sleep(0.2)", []);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const dump = await thread.dump();
    await inserting;
    const copy = await pgliteStorage(await startPgliteThread({ loadDataDir: dump }));
    opened.push(copy);
    expect(await preparedRows(copy.db, "select n from t", [])).toEqual([{ n: 1 }]);
  });

  it("refuses work once closed", async () => {
    const thread = await startPgliteThread();
    await thread.close();
    await expect(thread.execute(new Uint8Array(8))).rejects.toThrow(/closed/);
  });
});
