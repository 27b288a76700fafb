import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { decodeBase64 } from "@svc/canonical";
import { ConfigError } from "@svc/http";
import type { Config } from "./config.js";

/** File under the data directory holding the generated operator key (base64 seed, mode 0600). */
export const KT_KEY_FILE = "kt-signing-key";

/**
 * The 32-byte Ed25519 seed of the key-transparency operator key: SVC_KT_SIGNING_KEY when set,
 * else the key kept in `${dataDir}/kt-signing-key`, generated on first start. Several instances
 * on one database must share the key (the log refuses to start under another one).
 */
export async function loadKtSigningSeed(config: Config): Promise<Uint8Array> {
  if (config.kt.signingKey !== undefined) {
    return decodeSeed(config.kt.signingKey, "SVC_KT_SIGNING_KEY");
  }
  const path = join(config.dataDir, KT_KEY_FILE);
  const existing = await readKeyFile(path);
  if (existing !== undefined) return existing;
  await mkdir(config.dataDir, { recursive: true });
  const seed = new Uint8Array(randomBytes(32));
  // Written whole under a private name, then linked into place: another instance starting at the
  // same moment sees either no key file or a complete one, never a half-written file.
  const draft = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
  await writeFile(draft, `${Buffer.from(seed).toString("base64")}\n`, { flag: "wx", mode: 0o600 });
  try {
    await link(draft, path);
    return seed;
  } catch (error) {
    // Another instance sharing the data directory created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return (await readKeyFile(path)) as Uint8Array;
  } finally {
    await unlink(draft);
  }
}

async function readKeyFile(path: string): Promise<Uint8Array | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const { mode } = await stat(path);
  if ((mode & 0o077) !== 0) {
    throw new ConfigError([
      `${path}: readable by other users (mode ${(mode & 0o777).toString(8)}); chmod 600 it`,
    ]);
  }
  return decodeSeed(text.trim(), path);
}

function decodeSeed(text: string, source: string): Uint8Array {
  try {
    return decodeBase64(text, 32);
  } catch {
    throw new ConfigError([`${source}: must be the base64 of a 32-byte Ed25519 seed`]);
  }
}
