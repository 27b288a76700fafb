import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { notPrivateUnder } from "@svc/node-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStorage } from "./storage.js";
import { notes, notesMigrations } from "./test-support/packages.js";

let dir: string;
let umask: number;
beforeEach(async () => {
  // The most permissive umask: whatever is private below is so by the code's own doing.
  umask = process.umask(0);
  dir = await mkdtemp(join(tmpdir(), "svc-db-private-"));
});
afterEach(async () => {
  process.umask(umask);
  await rm(dir, { recursive: true, force: true });
});

describe("the embedded database on disk", () => {
  it("is 0700 directories and 0600 files after use and after close, whatever the umask", async () => {
    const dataDir = join(dir, "data");
    const storage = await openStorage({ dataDir, migrations: [notesMigrations] });
    try {
      await storage.db.insert(notes).values({ id: "alice", body: new Uint8Array(32) });
      expect(await notPrivateUnder(dataDir)).toEqual([]);
    } finally {
      await storage.close();
    }
    expect(await notPrivateUnder(dataDir)).toEqual([]);
  }, 60_000);

  it("narrows a data directory an earlier version left open", async () => {
    const dataDir = join(dir, "data");
    await (await openStorage({ dataDir, migrations: [] })).close();
    await chmod(dataDir, 0o755);
    await chmod(join(dataDir, "pglite", "PG_VERSION"), 0o666);
    const storage = await openStorage({ dataDir, migrations: [] });
    await storage.close();
    expect(await notPrivateUnder(dataDir)).toEqual([]);
  }, 60_000);
});
