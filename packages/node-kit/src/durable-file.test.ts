import { lstat, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  isErrno,
  readTextIfPresent,
  syncDirectory,
  TEMP_SUFFIX,
  writeFileAtomic,
} from "./durable-file.js";

let dir: string;
let umask: number;
beforeEach(async () => {
  // The most permissive umask: the modes below are the code's own.
  umask = process.umask(0);
  dir = await mkdtemp(join(tmpdir(), "svc-node-kit-durable-"));
});
afterEach(async () => {
  process.umask(umask);
  await rm(dir, { recursive: true, force: true });
});

describe("writeFileAtomic", () => {
  it("leaves a 0600 file, replacing one of another mode, and no temporary file", async () => {
    const path = join(dir, "state.json");
    await writeFile(path, "old", { mode: 0o644 });
    await writeFileAtomic(path, "new");
    expect(((await lstat(path)).mode & 0o777).toString(8)).toBe("600");
    expect(await readFile(path, "utf8")).toBe("new");
    expect(await readdir(dir)).toEqual(["state.json"]);
  });

  it("leaves the old content when the write cannot happen", async () => {
    const path = join(dir, "missing", "state.json");
    const error = await writeFileAtomic(path, "new").catch((thrown: unknown) => thrown);
    expect(isErrno(error, "ENOENT")).toBe(true);
    expect(await readdir(dir)).toEqual([]);
  });

  it("names its temporary files with TEMP_SUFFIX", () => {
    expect(TEMP_SUFFIX).toBe(".tmp");
  });
});

describe("syncDirectory", () => {
  it("syncs a directory, and throws for one that does not exist", async () => {
    await syncDirectory(dir);
    const error = await syncDirectory(join(dir, "gone")).catch((thrown: unknown) => thrown);
    expect(isErrno(error, "ENOENT")).toBe(true);
    expect(isErrno(error, "EEXIST")).toBe(false);
    expect(isErrno(undefined, "ENOENT")).toBe(false);
  });
});

describe("readTextIfPresent", () => {
  it("reads a file's text, answers undefined for a missing one, and throws any other failure", async () => {
    const path = join(dir, "present.txt");
    await writeFile(path, "h\u00e9llo\n");
    await expect(readTextIfPresent(path)).resolves.toBe("h\u00e9llo\n");
    await expect(readTextIfPresent(join(dir, "absent.txt"))).resolves.toBeUndefined();
    const error = await readTextIfPresent(dir).catch((failure: unknown) => failure);
    expect(isErrno(error, "EISDIR")).toBe(true);
  });
});
