import type { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startPgliteThread } from "./pglite-channel.js";
import { preparedRows } from "./rows.js";
import { pgliteStorage, type Storage } from "./storage.js";

/** Every database thread started here, so that a test can end one as a crash would. */
const threads = vi.hoisted((): Worker[] => []);
vi.mock("node:worker_threads", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:worker_threads")>();
  class RecordedWorker extends actual.Worker {
    constructor(...args: ConstructorParameters<typeof actual.Worker>) {
      super(...args);
      threads.push(this);
    }
  }
  return { ...actual, Worker: RecordedWorker };
});

const opened: Storage[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

async function storageWithThread(): Promise<{ storage: Storage; thread: Worker }> {
  const storage = await pgliteStorage(await startPgliteThread());
  opened.push(storage);
  return { storage, thread: threads.at(-1) as Worker };
}

// Each test starts embedded databases, which takes seconds on a loaded machine.
describe("embedded database thread that dies", { timeout: 60_000 }, () => {
  it("fails the running statement, those queued behind it and later ones at once", async () => {
    const { storage, thread } = await storageWithThread();
    const running = preparedRows(storage.db, "select pg_sleep(5)", []);
    const queued = preparedRows(storage.db, "select 1", []);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const died = performance.now();
    await thread.terminate();
    await expect(running).rejects.toThrow(/thread exited with code 1/);
    await expect(queued).rejects.toThrow(/thread exited with code 1/);
    await expect(preparedRows(storage.db, "select 2", [])).rejects.toThrow(/exited/);
    expect(performance.now() - died).toBeLessThan(1000);
  });

  it("reports the failure through the storage, and not a close", async () => {
    const { storage, thread } = await storageWithThread();
    const failure = vi.fn();
    storage.failed.then(failure);
    await thread.terminate();
    expect((await storage.failed).message).toMatch(/thread exited with code 1/);

    const other = await storageWithThread();
    other.storage.failed.then(failure);
    await other.storage.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(failure).toHaveBeenCalledOnce();
  });
});
