import { createRequire } from "node:module";
import { type Ed25519Verifier, isSmallOrderPoint, strictEd25519 } from "@svc/canonical";

/** The one libsodium function used, as sodium-native exposes it. */
export interface Sodium {
  crypto_sign_verify_detached(
    signature: Uint8Array,
    message: Uint8Array,
    publicKey: Uint8Array,
  ): boolean;
}

/**
 * sodium-native's prebuilt binary, required only when called (it is an optional dependency).
 * Throws where it does not load: not installed, or a platform without a prebuild.
 */
export function loadSodiumNative(): Sodium {
  return createRequire(import.meta.url)("sodium-native") as Sodium;
}

/**
 * libsodium through sodium-native: its verify takes about 40 µs here against OpenSSL's 85 µs,
 * and verification is most of a deposit's CPU.
 *
 * libsodium refuses every key or R of small order, which RFC 8032 accepts (the identity key
 * verifies any message with R = identity and S = 0). Those inputs go to `rfc8032`, so this
 * verifier answers exactly as the others do; no honest key has small order.
 */
export function sodiumEd25519(sodium: Sodium, rfc8032: Ed25519Verifier): Ed25519Verifier {
  return strictEd25519((signature, message, publicKey) =>
    isSmallOrderPoint(publicKey) || isSmallOrderPoint(signature)
      ? rfc8032.verify(signature, message, publicKey)
      : sodium.crypto_sign_verify_detached(signature, message, publicKey),
  );
}
