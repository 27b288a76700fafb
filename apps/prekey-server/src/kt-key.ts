import { join } from "node:path";
import { decodeBase64 } from "@svc/canonical";
import { ConfigError, loadOrCreateKeyFile } from "@svc/http";
import type { Config } from "./config.js";

/** File under the data directory holding the generated operator key (base64 seed, mode 0600). */
export const KT_KEY_FILE = "kt-signing-key";
/** File under the data directory holding the generated VRF secret key (base64, mode 0600). */
export const KT_VRF_KEY_FILE = "kt-vrf-key";

/**
 * The 32-byte Ed25519 seed of the key-transparency operator key: SVC_KT_SIGNING_KEY when set,
 * else the key kept in `${dataDir}/kt-signing-key`,
 * generated on first start. Several instances on one database must share the key (the log
 * refuses to start under another one).
 */
export async function loadKtSigningSeed(config: Config): Promise<Uint8Array> {
  if (config.kt.signingKey === undefined) {
    return loadOrCreateKeyFile(join(config.dataDir, KT_KEY_FILE), 32);
  }
  try {
    return decodeBase64(config.kt.signingKey, 32);
  } catch {
    throw new ConfigError(["SVC_KT_SIGNING_KEY: must be the base64 of a 32-byte Ed25519 seed"]);
  }
}

/**
 * The 32-byte VRF secret key whose outputs key the log's index map: SVC_KT_VRF_KEY when set,
 * else the key kept in `${dataDir}/kt-vrf-key`, generated on first start. Like the signing key,
 * every instance on one database must use the same one.
 */
export async function loadKtVrfKey(config: Config): Promise<Uint8Array> {
  if (config.kt.vrfKey === undefined) {
    return loadOrCreateKeyFile(join(config.dataDir, KT_VRF_KEY_FILE), 32);
  }
  try {
    return decodeBase64(config.kt.vrfKey, 32);
  } catch {
    throw new ConfigError(["SVC_KT_VRF_KEY: must be the base64 of a 32-byte VRF secret key"]);
  }
}
