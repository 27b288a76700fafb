import { spawnSync } from "node:child_process";
import { lstat, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquirePidLock, releasePidLockSync } from "./pid-lock.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-node-kit-lock-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const whenHeld = (pid: number) => new Error(`held by ${pid}`);

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(child.stdout.toString());
}

describe("acquirePidLock", () => {
  it("writes this process's pid and a newline, 0600, and removes it on release", async () => {
    const path = join(dir, "lock");
    const release = await acquirePidLock(path, { whenHeld });
    expect(await readFile(path, "utf8")).toBe(`${process.pid}\n`);
    expect((await lstat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(["lock"]);
    await release();
    expect(await readdir(dir)).toEqual([]);
  });

  it("refuses a lock a live process holds with whenHeld(pid), and leaves it", async () => {
    const path = join(dir, "lock");
    await writeFile(path, `${process.ppid}\n`);
    await expect(acquirePidLock(path, { whenHeld })).rejects.toThrow(`held by ${process.ppid}`);
    expect(await readFile(path, "utf8")).toBe(`${process.ppid}\n`);
  });

  it("waits up to waitMs for a holder in this process, and gets the lock once it lets go", async () => {
    const path = join(dir, "lock");
    const release = await acquirePidLock(path, { whenHeld });
    await expect(acquirePidLock(path, { whenHeld, waitMs: 30 })).rejects.toThrow(
      `held by ${process.pid}`,
    );
    const waiting = acquirePidLock(path, { whenHeld, waitMs: 10_000 });
    await release();
    const again = await waiting;
    expect(await readFile(path, "utf8")).toBe(`${process.pid}\n`);
    await again();
  });

  it("lets one holder in at a time among many waiting in this process", async () => {
    const path = join(dir, "lock");
    let inside = 0;
    let most = 0;
    let entered = 0;
    await Promise.all(
      Array.from({ length: 40 }, async () => {
        for (let round = 0; round < 10; round++) {
          const release = await acquirePidLock(path, { whenHeld, waitMs: 30_000 });
          inside++;
          entered++;
          most = Math.max(most, inside);
          await new Promise((resolve) => setImmediate(resolve));
          inside--;
          await release();
        }
      }),
    );
    expect({ entered, most }).toEqual({ entered: 400, most: 1 });
    expect(await readdir(dir)).toEqual([]);
  }, 60_000);

  it("takes over the lock of a process that is gone, of an earlier life of its own pid, or that holds no pid", async () => {
    for (const holder of [`${deadPid()}\n`, `${process.pid}\n`, "garbage", ""]) {
      const path = join(dir, "lock");
      await writeFile(path, holder);
      const release = await acquirePidLock(path, { whenHeld });
      expect(await readFile(path, "utf8")).toBe(`${process.pid}\n`);
      expect(await readdir(dir)).toEqual(["lock"]);
      await release();
    }
  });
});

describe("releasePidLockSync", () => {
  it("removes this process's lock only", async () => {
    const path = join(dir, "lock");
    await acquirePidLock(path, { whenHeld });
    releasePidLockSync(path);
    expect(await readdir(dir)).toEqual([]);
    await writeFile(path, `${process.ppid}\n`);
    releasePidLockSync(path);
    expect(await readFile(path, "utf8")).toBe(`${process.ppid}\n`);
    releasePidLockSync(join(dir, "absent"));
  });
});
