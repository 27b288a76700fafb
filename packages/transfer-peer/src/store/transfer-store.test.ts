import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestStorage, hasTestPostgres } from "@svc/db/testing";
import { SvcError } from "@svc/protocol";
import { newStreamId } from "@svc/protocol/transfer";
import { afterEach, describe, expect, it } from "vitest";
import { transferMigrations } from "../schema.js";
import { databaseTransferStore } from "./database-store.js";
import { fileTransferStore } from "./file-store.js";
import type { StreamRecord, TransferStore } from "./transfer-store.js";

/** A store, and another instance over the same directory or database: a restarted receiver. */
interface Opened {
  store: TransferStore;
  reopen(): TransferStore;
}

type Factory = (now: () => number) => Promise<Opened>;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const fileStore: Factory = async (now) => {
  const dir = await mkdtemp(join(tmpdir(), "svc-transfer-store-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const open = () => fileTransferStore({ dir: join(dir, "streams"), now });
  return { store: open(), reopen: open };
};

const databaseStore =
  (kind: "pglite" | "postgres"): Factory =>
  async (now) => {
    const storage = await createTestStorage({ migrations: [transferMigrations], kind });
    cleanups.push(() => storage.close());
    const open = () => databaseTransferStore({ db: storage.db, now });
    return { store: open(), reopen: open };
  };

const U64_MAX = 2n ** 64n - 1n;

function stream(overrides: Partial<StreamRecord> = {}): StreamRecord {
  return {
    streamId: newStreamId(),
    sender: "alice@example.org:1",
    name: "photo.jpg",
    version: 1,
    cipher: "chacha20-poly1305",
    size: 5_000_000_000,
    sha256: "ab".repeat(32),
    chunkBytes: 1 << 20,
    key: new Uint8Array(randomBytes(32)),
    status: "active",
    lastSeqAcked: [0n, 0n, 0n],
    createdAt: 1_000,
    updatedAt: 1_000,
    ...overrides,
  };
}

function v2Stream(overrides: Partial<StreamRecord> = {}): StreamRecord {
  const { sha256: _, ...record } = stream({ version: 2, cipher: "aes-256-gcm", ...overrides });
  return record;
}

describe.each([
  { name: "file store", factory: fileStore, skip: false },
  { name: "database store on PGlite", factory: databaseStore("pglite"), skip: false },
  {
    name: "database store on PostgreSQL",
    factory: databaseStore("postgres"),
    skip: !hasTestPostgres(),
  },
])("$name", ({ factory, skip }) => {
  let clock = 1_000;
  const now = () => clock;

  it.skipIf(skip)("keeps what create was given, and nothing for an unknown id", async () => {
    const { store } = await factory(now);
    const record = stream({ lastSeqAcked: [0n, 7n, U64_MAX] });
    await store.create(record);
    expect(await store.get(record.streamId)).toEqual(record);
    expect(await store.get(newStreamId())).toBeUndefined();
  });

  it.skipIf(skip)("keeps a version 2 stream, which has no SHA-256 yet", async () => {
    const { store, reopen } = await factory(now);
    const record = v2Stream();
    await store.create(record);
    for (const opened of [store, reopen()]) {
      const kept = await opened.get(record.streamId);
      expect(kept).toEqual(record);
      expect(kept).not.toHaveProperty("sha256");
    }
  });

  it.skipIf(skip)("refuses a second create of an id, whatever its status", async () => {
    const { store } = await factory(now);
    const record = stream();
    await store.create(record);
    await store.setStatus(record.streamId, "active", "aborted");
    const again = store.create(stream({ streamId: record.streamId, name: "other" }));
    await expect(again).rejects.toSatisfy(
      (error) => error instanceof SvcError && error.code === "SVC_INVALID_TRANSITION",
    );
    expect((await store.get(record.streamId))?.name).toBe("photo.jpg");
  });

  it.skipIf(skip)("advances a lane only from seq - 1 and only while active", async () => {
    const { store } = await factory(now);
    const record = stream();
    await store.create(record);
    const id = record.streamId;
    clock = 2_000;
    expect(await store.advanceLane(id, 1, 1n)).toBe(true);
    expect(await store.advanceLane(id, 1, 1n)).toBe(false);
    expect(await store.advanceLane(id, 1, 3n)).toBe(false);
    expect(await store.advanceLane(id, 3, 1n)).toBe(false);
    expect(await store.advanceLane(id, 2 ** 32 - 1, 1n)).toBe(false);
    expect(await store.advanceLane(newStreamId(), 0, 1n)).toBe(false);
    expect(await store.get(id)).toMatchObject({ lastSeqAcked: [0n, 1n, 0n], updatedAt: 2_000 });

    expect(await store.setStatus(id, "active", "paused")).toBe(true);
    expect(await store.advanceLane(id, 1, 2n)).toBe(false);
    expect(await store.setStatus(id, "paused", "active")).toBe(true);
    expect(await store.advanceLane(id, 1, 2n)).toBe(true);
    expect((await store.get(id))?.lastSeqAcked).toEqual([0n, 2n, 0n]);
  });

  it.skipIf(skip)("advances to the largest u64", async () => {
    const { store } = await factory(now);
    const record = stream({ lastSeqAcked: [U64_MAX - 1n] });
    await store.create(record);
    expect(await store.advanceLane(record.streamId, 0, U64_MAX)).toBe(true);
    expect((await store.get(record.streamId))?.lastSeqAcked).toEqual([U64_MAX]);
  });

  it.skipIf(skip)("moves the status only from the expected one", async () => {
    const { store } = await factory(now);
    const record = stream();
    await store.create(record);
    clock = 3_000;
    expect(await store.setStatus(record.streamId, "paused", "active")).toBe(false);
    expect(await store.setStatus(record.streamId, "active", "finished")).toBe(true);
    expect(await store.setStatus(record.streamId, "active", "aborted")).toBe(false);
    expect(await store.setStatus(newStreamId(), "active", "paused")).toBe(false);
    expect(await store.get(record.streamId)).toMatchObject({
      status: "finished",
      updatedAt: 3_000,
      createdAt: 1_000,
    });
  });

  it.skipIf(skip)("replaces the key of an active or paused version 2 stream", async () => {
    const { store, reopen } = await factory(now);
    clock = 1_000;
    const [active, paused] = [v2Stream(), v2Stream()];
    for (const record of [active, paused]) await store.create(record);
    expect(await store.setStatus(paused.streamId, "active", "paused")).toBe(true);
    clock = 4_000;
    for (const record of [active, paused]) {
      const key = new Uint8Array(randomBytes(32));
      expect(await store.rekey(record.streamId, key)).toBe(true);
      expect(await store.get(record.streamId)).toMatchObject({ key, updatedAt: 4_000 });
      // Durable: a restarted receiver opens the chunks that follow with it.
      expect(await reopen().get(record.streamId)).toMatchObject({
        key,
        status: record === active ? "active" : "paused",
        updatedAt: 4_000,
      });
    }
    // Lanes still advance under the new key.
    expect(await store.advanceLane(active.streamId, 0, 1n)).toBe(true);
  });

  it.skipIf(skip)(
    "keeps the key of a version 1 stream, a finished or aborted one, and an unknown id",
    async () => {
      const { store } = await factory(now);
      clock = 1_000;
      const [v1, finished, aborted] = [stream(), v2Stream(), v2Stream()];
      for (const record of [v1, finished, aborted]) await store.create(record);
      expect(await store.setStatus(finished.streamId, "active", "finished")).toBe(true);
      expect(await store.setStatus(aborted.streamId, "active", "aborted")).toBe(true);
      clock = 5_000;
      for (const record of [v1, finished, aborted]) {
        expect(await store.rekey(record.streamId, new Uint8Array(randomBytes(32)))).toBe(false);
        expect(await store.get(record.streamId)).toMatchObject({
          key: record.key,
          updatedAt: 1_000,
        });
      }
      const unknown = newStreamId();
      expect(await store.rekey(unknown, new Uint8Array(randomBytes(32)))).toBe(false);
      expect(await store.get(unknown)).toBeUndefined();
    },
  );

  it.skipIf(skip)(
    "removes an unfinished stream only when it has not moved since idleSince",
    async () => {
      const { store, reopen } = await factory(now);
      clock = 1_000;
      const [idle, moved, finished] = [stream(), stream(), stream()];
      for (const record of [idle, moved, finished]) await store.create(record);
      clock = 2_000;
      expect(await store.advanceLane(moved.streamId, 0, 1n)).toBe(true);
      expect(await store.setStatus(finished.streamId, "active", "finished")).toBe(true);
      expect(await store.removeIdle(idle.streamId, 999)).toBe(false);
      for (const record of [idle, moved, finished]) {
        expect(await store.removeIdle(record.streamId, 1_500)).toBe(record === idle);
      }
      expect(await store.removeIdle(idle.streamId, 1_500)).toBe(false);
      expect(await store.removeIdle(newStreamId(), 5_000)).toBe(false);
      const again = reopen();
      expect(await again.get(idle.streamId)).toBeUndefined();
      expect(await again.get(moved.streamId)).toMatchObject({ lastSeqAcked: [1n, 0n, 0n] });
      // Its id is free again, as after any removal.
      await again.create(idle);
      expect(await again.get(idle.streamId)).toMatchObject({ status: "active" });
    },
  );

  it.skipIf(skip)("lets exactly one of racing copies of a chunk advance its lane", async () => {
    const { store } = await factory(now);
    const record = stream();
    await store.create(record);
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => store.advanceLane(record.streamId, 0, 1n)),
    );
    expect(outcomes.filter(Boolean)).toHaveLength(1);
  });

  it.skipIf(skip)("advances lanes side by side", async () => {
    const { store } = await factory(now);
    const record = stream();
    await store.create(record);
    const lane = async (laneId: number) => {
      for (let seq = 1n; seq <= 20n; seq++) {
        expect(await store.advanceLane(record.streamId, laneId, seq)).toBe(true);
      }
    };
    await Promise.all([lane(0), lane(1), lane(2)]);
    expect((await store.get(record.streamId))?.lastSeqAcked).toEqual([20n, 20n, 20n]);
  });

  it.skipIf(skip)("hands its state to a new instance (a restart)", async () => {
    const { store, reopen } = await factory(now);
    const record = stream();
    await store.create(record);
    await store.advanceLane(record.streamId, 2, 1n);
    await store.setStatus(record.streamId, "active", "paused");
    const restarted = reopen();
    expect(await restarted.get(record.streamId)).toMatchObject({
      status: "paused",
      lastSeqAcked: [0n, 0n, 1n],
      key: record.key,
    });
    expect(await restarted.setStatus(record.streamId, "paused", "active")).toBe(true);
    expect(await restarted.advanceLane(record.streamId, 2, 2n)).toBe(true);
  });
});

describe("file store writes", () => {
  it("share one durable write among the advances that queue meanwhile, compare-and-set kept", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-transfer-store-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    let writes = 0;
    // now() stamps updatedAt once per write.
    const open = () => fileTransferStore({ dir, now: () => ++writes });
    const store = open();
    const record = stream({ lastSeqAcked: Array.from({ length: 8 }, () => 0n) });
    await store.create(record);
    const id = record.streamId;
    const outcomes = await Promise.all([
      ...Array.from({ length: 8 }, (_, laneId) => store.advanceLane(id, laneId, 1n)),
      store.advanceLane(id, 0, 1n),
      store.advanceLane(id, 0, 2n),
      store.advanceLane(id, 1, 3n),
    ]);
    expect(outcomes).toEqual([...Array.from({ length: 8 }, () => true), false, true, false]);
    expect(writes).toBeLessThan(4);
    // Each advance resolved after a write that holds it: another instance reads it from disk.
    expect((await open().get(id))?.lastSeqAcked).toEqual([
      2n,
      ...Array.from({ length: 7 }, () => 1n),
    ]);
    expect(await store.setStatus(id, "active", "paused")).toBe(true);
    expect(await Promise.all([store.advanceLane(id, 2, 2n), store.advanceLane(id, 3, 2n)])).toEqual(
      [false, false],
    );
  });
});

describe("file store files", () => {
  it("are private to the owner and leave no temporary file behind", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-transfer-store-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const store = fileTransferStore({ dir });
    const record = stream();
    await store.create(record);
    await store.advanceLane(record.streamId, 0, 1n);
    const files = [`${record.streamId}.json`, `${record.streamId}.lanes`];
    expect((await readdir(dir)).sort()).toEqual(files);
    for (const file of files) expect((await stat(join(dir, file))).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it("written by an older build, with no version, hold version 1 streams", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-transfer-store-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const record = stream({ lastSeqAcked: [0n, 0n] });
    await fileTransferStore({ dir }).create(record);
    // The record as a build before version 2 wrote it.
    const path = join(dir, `${record.streamId}.json`);
    const { version, ...old } = JSON.parse(await readFile(path, "utf8"));
    expect(version).toBe(1);
    await writeFile(path, JSON.stringify(old));
    const store = fileTransferStore({ dir });
    expect(await store.get(record.streamId)).toEqual(record);
    expect(await store.rekey(record.streamId, new Uint8Array(randomBytes(32)))).toBe(false);
    expect(await store.advanceLane(record.streamId, 1, 1n)).toBe(true);
  });

  it("keep the last whole lane progress when a crash tore the slot being written", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-transfer-store-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const store = fileTransferStore({ dir });
    const record = stream({ lastSeqAcked: [0n, 0n] });
    await store.create(record);
    await store.advanceLane(record.streamId, 0, 1n);
    await store.advanceLane(record.streamId, 1, 1n);
    // The second advance wrote slot 0 (version 2): spoil one byte of it, as a torn write would.
    const slots = join(dir, `${record.streamId}.lanes`);
    const bytes = await readFile(slots);
    bytes[20] = (bytes[20] ?? 0) ^ 0xff;
    await writeFile(slots, bytes);
    const restarted = fileTransferStore({ dir });
    expect((await restarted.get(record.streamId))?.lastSeqAcked).toEqual([1n, 0n]);
    expect(await restarted.advanceLane(record.streamId, 1, 1n)).toBe(true);
    expect((await fileTransferStore({ dir }).get(record.streamId))?.lastSeqAcked).toEqual([1n, 1n]);
    // Both slots spoilt: the record is refused rather than read as a lane at 0.
    await writeFile(slots, Buffer.alloc(bytes.length));
    await expect(fileTransferStore({ dir }).get(record.streamId)).rejects.toThrow(
      /no whole lane slot/,
    );
  });
});
