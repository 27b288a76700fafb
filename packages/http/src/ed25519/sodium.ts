import { createRequire } from "node:module";
import { type Ed25519Verifier, hexToBytes, strictEd25519 } from "@svc/canonical";

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
    hasSmallOrder(publicKey) || hasSmallOrder(signature)
      ? rfc8032.verify(signature, message, publicKey)
      : sodium.crypto_sign_verify_detached(signature, message, publicKey),
  );
}

/**
 * The y coordinates of the eight points of small order (0, 1, p - 1 and the two of order 8),
 * little-endian; x's sign bit does not change the order. The same list libsodium refuses.
 */
const SMALL_ORDER_Y = [
  "0000000000000000000000000000000000000000000000000000000000000000",
  "0100000000000000000000000000000000000000000000000000000000000000",
  "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
].map((hex) => hexToBytes(hex));

/** The canonical point encoding in the first 32 bytes is of a point of small order. */
function hasSmallOrder(bytes: Uint8Array): boolean {
  return SMALL_ORDER_Y.some((y) => {
    for (let i = 0; i < 31; i++) if (bytes[i] !== y[i]) return false;
    return ((bytes[31] as number) & 0x7f) === y[31];
  });
}
