import { createCipheriv, createDecipheriv } from "node:crypto";
import { CHUNK_TAG_BYTES, type ChunkCipher } from "@svc/protocol/transfer";

const ALGORITHM = "chacha20-poly1305";
const OPTIONS = { authTagLength: CHUNK_TAG_BYTES } as const;

/**
 * ChaCha20-Poly1305 on node:crypto (OpenSSL), several times the speed of the portable
 * nobleChunkCipher (about 7x on 1 MiB chunks): the default of the Node receiver and sender.
 */
export const nodeChunkCipher: ChunkCipher = {
  seal(key, nonce, ad, plaintext, output) {
    const cipher = createCipheriv(ALGORITHM, key, nonce, OPTIONS);
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
    const decipher = createDecipheriv(ALGORITHM, key, nonce, OPTIONS);
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
