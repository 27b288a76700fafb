import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeBase64 } from "@svc/canonical";
import { ConfigError } from "@svc/node-kit";
import { afterEach, describe, expect, it } from "vitest";
import { KT_KEY_FILE, loadKtSigningSeed } from "./kt-key.js";
import { testConfig } from "./test-support/app.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "svc-kt-key-"));
  dirs.push(dir);
  return join(dir, "data");
}

describe("loadKtSigningSeed", () => {
  it("uses SVC_KT_SIGNING_KEY when set, and writes no file", async () => {
    const dir = await dataDir();
    const seed = new Uint8Array(32).fill(9);
    const config = testConfig({ SVC_KT_SIGNING_KEY: encodeBase64(seed), SVC_DATA_DIR: dir });
    expect(await loadKtSigningSeed(config)).toEqual(seed);
    await expect(stat(join(dir, KT_KEY_FILE))).rejects.toThrow(/ENOENT/);
  });

  it("generates a key once, mode 0600, and reuses it on restart", async () => {
    const dir = await dataDir();
    const config = testConfig({ SVC_DATA_DIR: dir, SVC_KT_SIGNING_KEY: "" });
    const first = await loadKtSigningSeed(config);
    expect(first).toHaveLength(32);
    const file = join(dir, KT_KEY_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, "utf8")).trim()).toBe(encodeBase64(first));
    expect(await loadKtSigningSeed(config)).toEqual(first);
  });

  it("gives instances starting together on one data directory the same key", async () => {
    const config = testConfig({ SVC_DATA_DIR: await dataDir(), SVC_KT_SIGNING_KEY: "" });
    const seeds = await Promise.all(Array.from({ length: 5 }, () => loadKtSigningSeed(config)));
    for (const seed of seeds) expect(seed).toEqual(seeds[0]);
  });

  it("refuses a key file others can read, or one that is not a seed", async () => {
    const dir = await dataDir();
    const config = testConfig({ SVC_DATA_DIR: dir, SVC_KT_SIGNING_KEY: "" });
    await loadKtSigningSeed(config);
    const file = join(dir, KT_KEY_FILE);
    await chmod(file, 0o644);
    await expect(loadKtSigningSeed(config)).rejects.toThrow(/chmod 600/);
    await writeFile(file, "not base64\n", { mode: 0o600 });
    await chmod(file, 0o600);
    await expect(loadKtSigningSeed(config)).rejects.toBeInstanceOf(ConfigError);
  });

  it("refuses an SVC_KT_SIGNING_KEY with non-zero trailing bits", async () => {
    const bad = `${"A".repeat(42)}B=`;
    await expect(loadKtSigningSeed(testConfig({ SVC_KT_SIGNING_KEY: bad }))).rejects.toThrow(
      /SVC_KT_SIGNING_KEY/,
    );
  });
});
