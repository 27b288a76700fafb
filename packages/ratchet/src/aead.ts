import { xchacha20poly1305 } from "@noble/ciphers/chacha.js";

export const NONCE_SIZE = 24;
export const TAG_SIZE = 16;

/**
 * ENCRYPT(mk, plaintext, associated_data): XChaCha20-Poly1305 keyed with the message key itself
 * and a random 24-byte nonce sent with the ciphertext. A message key encrypts one message, so the
 * nonce matters only when a sender's state is rolled back (restored from a backup, or a crash
 * before it was saved) and the same key encrypts another plaintext: a random 192-bit nonce keeps
 * that from reusing keystream and the Poly1305 key.
 */
export function encrypt(
  mk: Uint8Array,
  nonce: Uint8Array,
  plaintext: Uint8Array,
  ad: Uint8Array,
): Uint8Array {
  return xchacha20poly1305(mk, nonce, ad).encrypt(plaintext);
}

/** DECRYPT(mk, ciphertext, associated_data), or undefined when authentication fails. */
export function decrypt(
  mk: Uint8Array,
  nonce: Uint8Array,
  ciphertext: Uint8Array,
  ad: Uint8Array,
): Uint8Array | undefined {
  try {
    return xchacha20poly1305(mk, nonce, ad).decrypt(ciphertext);
  } catch {
    return undefined;
  }
}
