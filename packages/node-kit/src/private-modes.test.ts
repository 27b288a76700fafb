import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { notPrivateUnder } from "./private-modes.js";

let dir: string;
let umask: number;
beforeEach(async () => {
  umask = process.umask(0);
  dir = await mkdtemp(join(tmpdir(), "svc-node-kit-modes-"));
});
afterEach(async () => {
  process.umask(umask);
  await rm(dir, { recursive: true, force: true });
});

describe("notPrivateUnder", () => {
  it("lists each directory not 0700 and file not 0600, links left out", async () => {
    await mkdir(join(dir, "open"), { mode: 0o755 });
    await writeFile(join(dir, "open", "shared"), "x", { mode: 0o644 });
    await writeFile(join(dir, "private"), "x", { mode: 0o600 });
    await symlink(join(dir, "open", "shared"), join(dir, "link"));
    expect((await notPrivateUnder(dir)).sort()).toEqual([
      `644 ${join(dir, "open", "shared")}`,
      `755 ${join(dir, "open")}`,
    ]);
  });
});
