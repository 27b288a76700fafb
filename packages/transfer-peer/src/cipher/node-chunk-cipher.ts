import { type CipherGCMTypes, createCipheriv, createDecipheriv } from "node:crypto";
import {
  AES_GCM_CHUNK_ENVELOPE_TYPE,
  CHUNK_ENVELOPE_TYPE,
  CHUNK_TAG_BYTES,
  type ChunkCipher,
} from "@svc/protocol/transfer";

const OPTIONS = { authTagLength: CHUNK_TAG_BYTES } as const;

/** A chunk AEAD on node:crypto (OpenSSL): the same bytes as the portable one of its type. */
function nodeCipher(
  algorithm: "chacha20-poly1305" | CipherGCMTypes,
  envelopeType: number,
): ChunkCipher {
  return {
    envelopeType,
    seal(key, nonce, ad, plaintext, output) {
      const cipher = createCipheriv(algorithm as CipherGCMTypes, key, nonce, OPTIONS);
      cipher.setAAD(ad, { plaintextLength: plaintext.length });
      // update() returns a new buffer, so `output` may overlap `plaintext` (sealing in place).
      const encrypted = cipher.update(plaintext);
      cipher.final();
      const sealed = output ?? new Uint8Array(plaintext.length + CHUNK_TAG_BYTES);
      sealed.set(encrypted);
      sealed.set(cipher.getAuthTag(), plaintext.length);
      return sealed;
    },
    open(key, nonce, ad, ciphertext) {
      if (ciphertext.length < CHUNK_TAG_BYTES) return undefined;
      const length = ciphertext.length - CHUNK_TAG_BYTES;
      const decipher = createDecipheriv(algorithm as CipherGCMTypes, key, nonce, OPTIONS);
      decipher.setAAD(ad, { plaintextLength: length });
      decipher.setAuthTag(ciphertext.subarray(length));
      const plaintext = decipher.update(ciphertext.subarray(0, length));
      try {
        decipher.final();
      } catch {
        return undefined;
      }
      return new Uint8Array(plaintext.buffer, plaintext.byteOffset, plaintext.byteLength);
    },
  };
}

/**
 * ChaCha20-Poly1305 (version 1) on node:crypto, several times the speed of the portable
 * nobleChunkCipher (about 7x on 1 MiB chunks).
 */
export const nodeChunkCipher: ChunkCipher = nodeCipher("chacha20-poly1305", CHUNK_ENVELOPE_TYPE);

/**
 * AES-256-GCM (version 2) on node:crypto, with AES-NI where the CPU has it: about 2 GB/s to open
 * 4 MiB chunks here, above libsodium's ChaCha20-Poly1305 in place (about 1.5 GB/s).
 */
export const nodeAesGcmChunkCipher: ChunkCipher = nodeCipher(
  "aes-256-gcm",
  AES_GCM_CHUNK_ENVELOPE_TYPE,
);
