import { createRequire } from "node:module";
import { CHUNK_ENVELOPE_TYPE, CHUNK_TAG_BYTES, type ChunkCipher } from "@svc/protocol/transfer";

/** The two libsodium functions used, as sodium-native exposes them. */
interface SodiumAead {
  crypto_aead_chacha20poly1305_ietf_encrypt(
    ciphertext: Uint8Array,
    message: Uint8Array,
    ad: Uint8Array | null,
    nsec: null,
    nonce: Uint8Array,
    key: Uint8Array,
  ): number;
  /** Throws when authentication fails, before writing `message`. */
  crypto_aead_chacha20poly1305_ietf_decrypt(
    message: Uint8Array,
    nsec: null,
    ciphertext: Uint8Array,
    ad: Uint8Array | null,
    nonce: Uint8Array,
    key: Uint8Array,
  ): number;
}

/**
 * ChaCha20-Poly1305 on libsodium (sodium-native, an optional dependency), sealing and opening in
 * place: node:crypto returns each 4 MiB result in a new buffer, and those allocations (and their
 * garbage) cost a receiver as much as the cipher itself; libsodium is also faster (1.6 GB/s
 * against 1.1 here). Throws where sodium-native does not load.
 */
export function sodiumChunkCipher(): ChunkCipher {
  const sodium = createRequire(import.meta.url)("sodium-native") as SodiumAead;
  return {
    envelopeType: CHUNK_ENVELOPE_TYPE,
    seal(key, nonce, ad, plaintext, output) {
      const sealed = output ?? new Uint8Array(plaintext.length + CHUNK_TAG_BYTES);
      sodium.crypto_aead_chacha20poly1305_ietf_encrypt(sealed, plaintext, ad, null, nonce, key);
      return sealed;
    },
    open(key, nonce, ad, ciphertext) {
      if (ciphertext.length < CHUNK_TAG_BYTES) return undefined;
      const plaintext = ciphertext.subarray(0, ciphertext.length - CHUNK_TAG_BYTES);
      try {
        sodium.crypto_aead_chacha20poly1305_ietf_decrypt(
          plaintext,
          null,
          ciphertext,
          ad,
          nonce,
          key,
        );
      } catch {
        return undefined;
      }
      return plaintext;
    },
  };
}
