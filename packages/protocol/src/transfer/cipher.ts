import { gcm } from "@noble/ciphers/aes.js";
import { chacha20poly1305 } from "@noble/ciphers/chacha.js";

/** The AEAD's tag, appended to every chunk's ciphertext (16 bytes for both ciphers). */
export const CHUNK_TAG_BYTES = 16;

/** Leading byte of a chunk envelope sealed with ChaCha20-Poly1305 (every version 1 chunk). */
export const CHUNK_ENVELOPE_TYPE = 0x11;
/** Leading byte of a chunk envelope sealed with AES-256-GCM (version 2 streams that name it). */
export const AES_GCM_CHUNK_ENVELOPE_TYPE = 0x12;

/**
 * A chunk AEAD behind an interface, so that Node can pass a native implementation while browsers
 * use @noble/ciphers: ChaCha20-Poly1305 (RFC 8439) or AES-256-GCM (NIST SP 800-38D, 96-bit
 * nonce, 128-bit tag). Every implementation of one AEAD gives the same bytes; `envelopeType`
 * names which AEAD it is.
 */
export interface ChunkCipher {
  /** The envelope type byte of the AEAD: 0x11 or 0x12. */
  readonly envelopeType: number;
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

/** The portable ChaCha20-Poly1305. */
export const nobleChunkCipher: ChunkCipher = {
  envelopeType: CHUNK_ENVELOPE_TYPE,
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

/** The portable AES-256-GCM. */
export const nobleAesGcmChunkCipher: ChunkCipher = {
  envelopeType: AES_GCM_CHUNK_ENVELOPE_TYPE,
  // noble's GCM writes no caller's buffer: sealChunk copies its answer into the envelope.
  seal(key, nonce, ad, plaintext) {
    return gcm(key, nonce, ad).encrypt(plaintext);
  },
  open(key, nonce, ad, ciphertext) {
    try {
      return gcm(key, nonce, ad).decrypt(ciphertext);
    } catch {
      return undefined;
    }
  },
};
