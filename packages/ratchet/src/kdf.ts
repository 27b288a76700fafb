import { hkdf } from "@noble/hashes/hkdf.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { concatBytes } from "@svc/canonical";

const utf8 = new TextEncoder();

/** HKDF info of the X3DH shared secret SK. */
export const X3DH_INFO = utf8.encode("svc-ratchet-v1 X3DH");
/** HKDF info of the PQXDH shared secret SK: PQXDH §2.2's "KDF info" names curve, hash and KEM. */
export const PQXDH_INFO = utf8.encode("svc-ratchet-v1 PQXDH X25519 SHA-256 ML-KEM-1024");
/** HKDF info of KDF_RK. */
export const ROOT_INFO = utf8.encode("svc-ratchet-v1 root");

/** X3DH §2.2's F: 32 0xFF bytes (domain separation from XEdDSA there; kept to match the spec). */
const X3DH_F = new Uint8Array(32).fill(0xff);
const ZERO_SALT = new Uint8Array(32);
const MESSAGE_KEY_CONSTANT = Uint8Array.of(0x01);
const CHAIN_KEY_CONSTANT = Uint8Array.of(0x02);

/** X3DH KDF: SK = HKDF-SHA256(salt = 32 zero bytes, IKM = F || DH1 || ... || DHn, X3DH_INFO). */
export function kdfX3dh(dhOutputs: readonly Uint8Array[]): Uint8Array {
  return hkdf(sha256, concatBytes(X3DH_F, ...dhOutputs), ZERO_SALT, X3DH_INFO, 32);
}

/**
 * PQXDH KDF (PQXDH §2.2): SK = HKDF-SHA256(salt = 32 zero bytes, IKM = F || DH1 || ... || DHn ||
 * SS, PQXDH_INFO), SS being the ML-KEM shared secret.
 */
export function kdfPqxdh(
  dhOutputs: readonly Uint8Array[],
  kemSharedSecret: Uint8Array,
): Uint8Array {
  return hkdf(
    sha256,
    concatBytes(X3DH_F, ...dhOutputs, kemSharedSecret),
    ZERO_SALT,
    PQXDH_INFO,
    32,
  );
}

/** KDF_RK(rk, dh_out): HKDF-SHA256 with the root key as salt, split into a root and a chain key. */
export function kdfRk(
  rk: Uint8Array,
  dhOut: Uint8Array,
): { rootKey: Uint8Array; chainKey: Uint8Array } {
  const out = hkdf(sha256, dhOut, rk, ROOT_INFO, 64);
  return { rootKey: out.subarray(0, 32), chainKey: out.subarray(32, 64) };
}

/** KDF_CK(ck): message key HMAC-SHA256(ck, 0x01), next chain key HMAC-SHA256(ck, 0x02). */
export function kdfCk(ck: Uint8Array): { chainKey: Uint8Array; messageKey: Uint8Array } {
  // Both MACs share the keyed (ipad/opad) state: two compressions fewer per message.
  const keyed = hmac.create(sha256, ck);
  const messageKey = keyed.clone().update(MESSAGE_KEY_CONSTANT).digest();
  const chainKey = keyed.update(CHAIN_KEY_CONSTANT).digest();
  return { chainKey, messageKey };
}
