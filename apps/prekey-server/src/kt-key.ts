import { join } from "node:path";
import { decodeBase64 } from "@svc/canonical";
import { ConfigError, loadOrCreateKeyFile } from "@svc/node-kit";
import type { Config } from "./config.js";

/** File under the data directory holding the generated operator key (base64 seed, mode 0600). */
export const KT_KEY_FILE = "kt-signing-key";
/** File under the data directory holding the generated VRF secret key (base64, mode 0600). */
export const KT_VRF_KEY_FILE = "kt-vrf-key";

/**
 * The 32-byte Ed25519 seed of the key-transparency operator key: SVC_KT_SIGNING_KEY when set,
 * else the key kept in `${dataDir}/kt-signing-key`, generated on first start. Several instances
 * on one database must share the key (the log refuses to start under another one).
 */
export function loadKtSigningSeed(config: Config): Promise<Uint8Array> {
  return loadKey(
    config,
    config.kt.signingKey,
    KT_KEY_FILE,
    "SVC_KT_SIGNING_KEY: must be the base64 of a 32-byte Ed25519 seed",
  );
}

/**
 * The 32-byte VRF secret key whose outputs key the log's index map: SVC_KT_VRF_KEY when set,
 * else the key kept in `${dataDir}/kt-vrf-key`, generated on first start. Like the signing key,
 * every instance on one database must use the same one.
 */
export function loadKtVrfKey(config: Config): Promise<Uint8Array> {
  return loadKey(
    config,
    config.kt.vrfKey,
    KT_VRF_KEY_FILE,
    "SVC_KT_VRF_KEY: must be the base64 of a 32-byte VRF secret key",
  );
}

/** The configured base64 key, or the one kept (or generated) in the data directory's `file`. */
async function loadKey(
  config: Config,
  configured: string | undefined,
  file: string,
  problem: string,
): Promise<Uint8Array> {
  if (configured === undefined) return loadOrCreateKeyFile(join(config.dataDir, file), 32);
  try {
    return decodeBase64(configured, 32);
  } catch {
    throw new ConfigError([problem]);
  }
}
