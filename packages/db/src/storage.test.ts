import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { preparedRows } from "./rows.js";
import { identities } from "./schema/index.js";
import { openStorage, type Storage } from "./storage.js";
import { createTestStorage, hasTestPostgres } from "./testing.js";

const opened: Storage[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

const identity = (address: string) => ({
  address,
  signingKey: new Uint8Array(32).fill(1),
  dhKey: new Uint8Array(32).fill(2),
  signedPreKeyId: 1,
  signedPreKey: new Uint8Array(32).fill(3),
  signedPreKeySignature: new Uint8Array(64).fill(4),
  createdAt: 1,
  updatedAt: 1,
});

describe("embedded storage", () => {
  it("keeps rows across a restart of the data directory", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "svc-db-"));
    try {
      const first = await openStorage({ dataDir });
      await first.db.insert(identities).values(identity("alice"));
      await first.close();
      const second = await openStorage({ dataDir });
      opened.push(second);
      const rows = await second.db.select().from(identities).where(eq(identities.address, "alice"));
      expect(rows).toHaveLength(1);
      expect(Uint8Array.from(rows[0]?.signingKey ?? [])).toEqual(new Uint8Array(32).fill(1));
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe.runIf(hasTestPostgres())("postgres storage", () => {
  it("gives each test an empty migrated database", async () => {
    const storage = await createTestStorage({ kind: "postgres" });
    opened.push(storage);
    await storage.db.insert(identities).values(identity("bob"));
    const other = await createTestStorage({ kind: "postgres" });
    opened.push(other);
    expect(await other.db.select().from(identities)).toEqual([]);
    await storage.ping();
  });
});

const kinds = hasTestPostgres() ? (["pglite", "postgres"] as const) : (["pglite"] as const);

describe.each(kinds)("bytea on %s", (kind) => {
  it("round-trips every byte value, empty values and views into larger buffers", async () => {
    const storage = await createTestStorage({ kind });
    opened.push(storage);
    const everyByte = Uint8Array.from({ length: 256 }, (_, i) => i);
    const view = new Uint8Array(64).fill(7).subarray(8, 40);
    view[0] = 0;
    await storage.db.insert(identities).values({
      ...identity("carol"),
      signingKey: everyByte,
      dhKey: new Uint8Array(0),
      signedPreKey: view,
    });
    // postgres.js answers Buffers: compare the bytes.
    const bytes = (value: Uint8Array | undefined) => Uint8Array.from(value ?? [9]);
    const [row] = await storage.db.select().from(identities);
    expect(bytes(row?.signingKey)).toEqual(everyByte);
    expect(bytes(row?.dhKey)).toEqual(new Uint8Array(0));
    expect(bytes(row?.signedPreKey)).toEqual(view.slice());
    const [raw] = await preparedRows<{ key: Uint8Array; same: boolean }>(
      storage.db,
      "select signing_key as key, signing_key = $1::bytea as same from identities",
      [everyByte],
    );
    expect(bytes(raw?.key)).toEqual(everyByte);
    expect(raw?.same).toBe(true);
  });
});

describe.each(kinds)("notifications on %s", (kind) => {
  it("reach listeners in order, several in one call, and the listener hears of its subscription", async () => {
    const storage = await createTestStorage({ kind });
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
