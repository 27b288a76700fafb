import { join } from "node:path";
import { decodeBase64Url, encodeBase64Url } from "@svc/canonical";
import { ConfigError, createFileOnce, readPrivateFile } from "@svc/node-kit";
import { generateVapidKeys, type VapidKeys, vapidKeysFromPrivate } from "@svc/web-push";
import type { Config } from "./config.js";

/** File under the data directory holding the generated VAPID key (base64url scalar, mode 0600). */
export const PUSH_VAPID_KEY_FILE = "push-vapid-key";

/**
 * The VAPID key pair wake-ups are signed with: SVC_PUSH_VAPID_KEY when set, else the key kept
 * in `${dataDir}/push-vapid-key`, generated on first start. Every instance on one database must
 * use the same one: subscriptions are made for one public key.
 */
export async function loadVapidKeys(config: Config): Promise<VapidKeys> {
  if (config.push.vapidKey !== undefined) {
    return parse(
      config.push.vapidKey,
      "SVC_PUSH_VAPID_KEY: must be the base64url of a 32-byte P-256 private key",
    );
  }
  const path = join(config.dataDir, PUSH_VAPID_KEY_FILE);
  const problem = `${path}: must hold the base64url of a 32-byte P-256 private key`;
  const existing = await readPrivateFile(path, (message) => new ConfigError([message]));
  if (existing !== undefined) return parse(existing.trim(), problem);
  const keys = generateVapidKeys();
  if (await createFileOnce(path, `${encodeBase64Url(keys.privateKey)}\n`)) return keys;
  // Another instance on the same directory wrote it first: theirs stands.
  return parse(((await readPrivateFile(path, (m) => new ConfigError([m]))) ?? "").trim(), problem);
}

function parse(text: string, problem: string): VapidKeys {
  try {
    return vapidKeysFromPrivate(decodeBase64Url(text));
  } catch {
    throw new ConfigError([problem]);
  }
}
