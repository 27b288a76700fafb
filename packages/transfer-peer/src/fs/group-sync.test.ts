import { describe, expect, it } from "vitest";
import { GroupSync } from "./group-sync.js";

/** A sync whose runs are ended by the test: each run's start is logged. */
function controlledSync() {
  const runs: Array<{ end: (error?: Error) => void }> = [];
  const log: string[] = [];
  const group = new GroupSync(
    () =>
      new Promise<void>((resolve, reject) => {
        const run = runs.length;
        log.push(`start ${run}`);
        runs.push({
          end: (error) => {
            log.push(`end ${run}`);
            if (error) reject(error);
            else resolve();
          },
        });
      }),
  );
  const end = async (run: number, error?: Error) => {
    runs[run]?.end(error);
    // Let the settled run's callbacks (and the queued run's start) happen.
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };
  return { group, runs, log, end };
}

/** A caller: logs when its sync resolves or rejects. */
function caller(group: GroupSync, name: string, log: string[]): Promise<void> {
  log.push(`${name} wrote`);
  return group.sync().then(
    () => void log.push(`${name} synced`),
    () => void log.push(`${name} failed`),
  );
}

describe("GroupSync", () => {
  it("serves the writers that came during a sync with one sync that begins after it", async () => {
    const { group, runs, log, end } = controlledSync();
    const a = caller(group, "a", log);
    const b = caller(group, "b", log);
    const c = caller(group, "c", log);
    const d = caller(group, "d", log);
    expect(runs).toHaveLength(1);
    await end(0);
    await a;
    expect(runs).toHaveLength(2);
    await end(1);
    await Promise.all([b, c, d]);
    expect(log).toEqual([
      "a wrote",
      "start 0",
      "b wrote",
      "c wrote",
      "d wrote",
      "end 0",
      "a synced",
      "start 1",
      "end 1",
      "b synced",
      "c synced",
      "d synced",
    ]);
  });

  it("resolves each concurrent writer only after a sync that began after its write", async () => {
    const { group, runs, log, end } = controlledSync();
    const writers: Promise<void>[] = [];
    for (let round = 0; round < 5; round++) {
      for (let lane = 0; lane < 3; lane++) writers.push(caller(group, `${round}/${lane}`, log));
      await end(runs.length - 1);
    }
    while (log.filter((line) => line.endsWith("synced")).length < writers.length) {
      await end(runs.length - 1);
    }
    await Promise.all(writers);
    for (const line of log.filter((entry) => entry.endsWith(" wrote"))) {
      const name = line.slice(0, -" wrote".length);
      const wrote = log.indexOf(line);
      const synced = log.indexOf(`${name} synced`);
      // The last run that ended before the writer resolved began after its write.
      const ended = log
        .slice(0, synced)
        .filter((entry) => entry.startsWith("end "))
        .at(-1);
      const started = log.indexOf(`start ${ended?.slice("end ".length)}`);
      expect(started).toBeGreaterThan(wrote);
    }
    expect(runs.length).toBeLessThan(writers.length);
  });

  it("rejects the writers a failed sync was to cover; the next writer gets a new sync", async () => {
    const { group, runs, log, end } = controlledSync();
    const a = caller(group, "a", log);
    const b = caller(group, "b", log);
    await end(0, new Error("EIO"));
    await a;
    await end(1);
    await b;
    const c = caller(group, "c", log);
    await end(2, new Error("EIO"));
    await c;
    const d = caller(group, "d", log);
    await end(3);
    await d;
    expect(log.filter((line) => !line.startsWith("start") && !line.startsWith("end"))).toEqual([
      "a wrote",
      "b wrote",
      "a failed",
      "b synced",
      "c wrote",
      "c failed",
      "d wrote",
      "d synced",
    ]);
    expect(runs).toHaveLength(4);
  });
});
