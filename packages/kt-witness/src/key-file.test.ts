import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatSignerKey, parseSignerKey } from "@svc/signed-note";
import { afterEach, describe, expect, it } from "vitest";
import { loadOrCreateSignerKey, readSignerKeyFile } from "./key-file.js";
import { codeOf } from "./test-support/error-code.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function keyPath(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kt-witness-key-"));
  dirs.push(dir);
  return join(dir, "sub", "witness-key");
}

describe("the witness key file", () => {
  it("is created once, 0600, in Go's PRIVATE+KEY format, and read back the same", async () => {
    const path = await keyPath();
    expect(await readSignerKeyFile(path)).toBeUndefined();
    const created = await loadOrCreateSignerKey(path, "witness.example/w1");
    const text = await readFile(path, "utf8");
    expect(text).toMatch(/^PRIVATE\+KEY\+witness\.example\/w1\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}\n$/);
    expect(parseSignerKey(text.trim())).toEqual(created);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await loadOrCreateSignerKey(path, "witness.example/w1")).toEqual(created);
    expect(await readSignerKeyFile(path)).toEqual(created);
  });

  it("gives processes starting at once the same key", async () => {
    const path = await keyPath();
    const keys = await Promise.all(
      Array.from({ length: 8 }, () => loadOrCreateSignerKey(path, "w")),
    );
    for (const key of keys) expect(key.seed).toEqual(keys[0]?.seed);
  });

  it("refuses a file others can read, a malformed one, and another name's key", async () => {
    const path = await keyPath();
    await loadOrCreateSignerKey(path, "w");
    await chmod(path, 0o640);
    expect(await codeOf(() => readSignerKeyFile(path))).toBe("WITNESS_KEY_FILE");
    expect(await codeOf(() => loadOrCreateSignerKey(path, "w"))).toBe("WITNESS_KEY_FILE");
    for (const text of ["", "garbage\n", `${formatSignerKey("w", new Uint8Array(32))}x\n`]) {
      await writeFile(path, text, { mode: 0o600 });
      await chmod(path, 0o600);
      expect(await codeOf(() => loadOrCreateSignerKey(path, "w"))).toBe("WITNESS_KEY_FILE");
    }
    await writeFile(path, `${formatSignerKey("other", new Uint8Array(32))}\n`);
    expect((await readSignerKeyFile(path))?.name).toBe("other");
    await expect(loadOrCreateSignerKey(path, "w")).rejects.toThrow(/holds the key of other, not w/);
    await expect(loadOrCreateSignerKey(path, "a+b")).rejects.toThrow(RangeError);
  });
});
