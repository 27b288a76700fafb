import { lstat, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFileAtomic } from "./durable-file.js";
import { ConfigError } from "./env.js";
import { loadOrCreateKeyFile } from "./key-file.js";

let dir: string;
let umask: number;
beforeEach(async () => {
  // The most permissive umask: the modes below are the code's own.
  umask = process.umask(0);
  dir = await mkdtemp(join(tmpdir(), "svc-http-key-"));
});
afterEach(async () => {
  process.umask(umask);
  await rm(dir, { recursive: true, force: true });
});

const modeOf = async (path: string) => ((await lstat(path)).mode & 0o777).toString(8);

describe("loadOrCreateKeyFile", () => {
  it("makes a 0600 file in 0700 directories, and reads the same secret back", async () => {
    const path = join(dir, "data", "kt-signing-key");
    const secret = await loadOrCreateKeyFile(path, 32);
    expect(await modeOf(join(dir, "data"))).toBe("700");
    expect(await modeOf(path)).toBe("600");
    expect(await loadOrCreateKeyFile(path, 32)).toEqual(secret);
  });

  it("refuses a key file others may read", async () => {
    const path = join(dir, "key");
    await writeFile(path, `${Buffer.alloc(32).toString("base64")}\n`, { mode: 0o644 });
    await expect(loadOrCreateKeyFile(path, 32)).rejects.toThrow(ConfigError);
    await expect(loadOrCreateKeyFile(path, 32)).rejects.toThrow("mode 644); chmod 600 it");
  });
});

describe("writeFileAtomic", () => {
  it("leaves a 0600 file, replacing one of another mode", async () => {
    const path = join(dir, "state.json");
    await writeFile(path, "old", { mode: 0o644 });
    await writeFileAtomic(path, "new");
    expect(await modeOf(path)).toBe("600");
    expect(await readFile(path, "utf8")).toBe("new");
  });
});
