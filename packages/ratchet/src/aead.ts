import { chacha20poly1305 } from "@noble/ciphers/chacha.js";

export const NONCE_SIZE = 12;
export const TAG_SIZE = 16;

/**
 * ENCRYPT(mk, plaintext, associated_data): ChaCha20-Poly1305 (RFC 8439) keyed with the message
 * key itself and a random 12-byte nonce sent with the ciphertext. A message key encrypts one
 * message, so the nonce matters only when a sender's state is rolled back (restored from a
 * backup, or a crash before it was saved) and the same key encrypts another plaintext: the few
 * nonces one key can ever see are random 96-bit values, so none repeats keystream or the
 * Poly1305 key.
 */
export function encrypt(
  mk: Uint8Array,
  nonce: Uint8Array,
  plaintext: Uint8Array,
  ad: Uint8Array,
): Uint8Array {
  return chacha20poly1305(mk, nonce, ad).encrypt(plaintext);
}

/** DECRYPT(mk, ciphertext, associated_data), or undefined when authentication fails. */
export function decrypt(
  mk: Uint8Array,
  nonce: Uint8Array,
  ciphertext: Uint8Array,
  ad: Uint8Array,
): Uint8Array | undefined {
  try {
    return chacha20poly1305(mk, nonce, ad).decrypt(ciphertext);
  } catch {
    return undefined;
  }
}
