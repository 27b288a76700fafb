import { chacha20poly1305 } from "@noble/ciphers/chacha.js";

/** ChaCha20-Poly1305's tag, appended to every chunk's ciphertext. */
export const CHUNK_TAG_BYTES = 16;

/**
 * ChaCha20-Poly1305 (RFC 8439) behind an interface, so that Node can pass its native
 * implementation while browsers use @noble/ciphers.
 */
export interface ChunkCipher {
  /**
   * ciphertext || tag of `plaintext`. When `output` (plaintext.length + 16 bytes) is given, the
   * cipher may write there and return it; `output` may begin where `plaintext` begins, which is
   * how a chunk is sealed in place inside its envelope. Returning a new array is correct too,
   * at the cost of one copy.
   */
  seal(
    key: Uint8Array,
    nonce: Uint8Array,
    ad: Uint8Array,
    plaintext: Uint8Array,
    output?: Uint8Array,
  ): Uint8Array;
  /**
   * The plaintext, or undefined when authentication fails. The cipher may open in place: write
   * the plaintext over `ciphertext` and return a view of it (and, on a failure, zeros, never
   * unauthenticated plaintext). A caller that needs the ciphertext afterwards keeps a copy.
   */
  open(
    key: Uint8Array,
    nonce: Uint8Array,
    ad: Uint8Array,
    ciphertext: Uint8Array,
  ): Uint8Array | undefined;
}

/** The portable default. */
export const nobleChunkCipher: ChunkCipher = {
  seal(key, nonce, ad, plaintext, output) {
    return chacha20poly1305(key, nonce, ad).encrypt(plaintext, output);
  },
  open(key, nonce, ad, ciphertext) {
    try {
      return chacha20poly1305(key, nonce, ad).decrypt(ciphertext);
    } catch {
      return undefined;
    }
  },
};
