import { chmod, lstat, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "./errors.js";
import { createFileOnce, loadOrCreateKeyFile, readPrivateFile } from "./key-file.js";

let dir: string;
let umask: number;
beforeEach(async () => {
  // The most permissive umask: the modes below are the code's own.
  umask = process.umask(0);
  dir = await mkdtemp(join(tmpdir(), "svc-node-kit-key-"));
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

  it("gives processes starting at once the same secret", async () => {
    const path = join(dir, "key");
    const secrets = await Promise.all(
      Array.from({ length: 8 }, () => loadOrCreateKeyFile(path, 32)),
    );
    for (const secret of secrets) expect(secret).toEqual(secrets[0]);
    expect(await readdir(dir)).toEqual(["key"]);
  });

  it("refuses a file that does not hold the base64 of `length` bytes", async () => {
    const path = join(dir, "key");
    await writeFile(path, "c2hvcnQ=\n", { mode: 0o600 });
    await expect(loadOrCreateKeyFile(path, 32)).rejects.toThrow(
      `${path}: must hold the base64 of 32 bytes`,
    );
  });
});

describe("createFileOnce", () => {
  it("writes a new 0600 file whole, and leaves an existing one as it is", async () => {
    const path = join(dir, "sub", "file");
    expect(await createFileOnce(path, "first\n")).toBe(true);
    expect(await createFileOnce(path, "second\n")).toBe(false);
    expect(await readFile(path, "utf8")).toBe("first\n");
    expect(await modeOf(path)).toBe("600");
    expect(await modeOf(join(dir, "sub"))).toBe("700");
    expect(await readdir(join(dir, "sub"))).toEqual(["file"]);
  });
});

describe("readPrivateFile", () => {
  it("reads a private file, answers undefined for a missing one, and refuses a shared one", async () => {
    const path = join(dir, "file");
    const refuse = (message: string) => new RangeError(message);
    expect(await readPrivateFile(path, refuse)).toBeUndefined();
    await writeFile(path, "text", { mode: 0o600 });
    expect(await readPrivateFile(path, refuse)).toBe("text");
    await chmod(path, 0o640);
    await expect(readPrivateFile(path, refuse)).rejects.toThrow(
      new RangeError(`${path}: readable by other users (mode 640); chmod 600 it`),
    );
  });
});
