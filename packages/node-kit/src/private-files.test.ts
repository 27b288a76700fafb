import { lstat, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makePrivateDirectory, restrictTree } from "./private-files.js";
import { notPrivateUnder } from "./private-modes.js";

let dir: string;
let umask: number;
beforeEach(async () => {
  // The most permissive umask: whatever is private below is so by the code's own doing.
  umask = process.umask(0);
  dir = await mkdtemp(join(tmpdir(), "svc-node-kit-private-"));
});
afterEach(async () => {
  process.umask(umask);
  await rm(dir, { recursive: true, force: true });
});

describe("makePrivateDirectory", () => {
  it("makes missing directories 0700 and narrows an existing one", async () => {
    await makePrivateDirectory(join(dir, "a", "b"));
    expect(await notPrivateUnder(join(dir, "a"))).toEqual([]);
    await mkdir(join(dir, "open"), { mode: 0o755 });
    await makePrivateDirectory(join(dir, "open"));
    expect(((await lstat(join(dir, "open"))).mode & 0o777).toString(8)).toBe("700");
  });
});

describe("restrictTree", () => {
  it("takes group and other bits from every file and directory, not through links", async () => {
    await mkdir(join(dir, "d", "e"), { recursive: true, mode: 0o775 });
    await writeFile(join(dir, "d", "e", "f"), "x", { mode: 0o666 });
    await writeFile(join(dir, "d", "g"), "x", { mode: 0o640 });
    const outside = join(dir, "outside");
    await writeFile(outside, "x", { mode: 0o644 });
    await symlink(outside, join(dir, "d", "link"));
    await restrictTree(join(dir, "d"));
    expect(await notPrivateUnder(join(dir, "d"))).toEqual([]);
    expect(((await lstat(outside)).mode & 0o777).toString(8)).toBe("644");
  });
});
