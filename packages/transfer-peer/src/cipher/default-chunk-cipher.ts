import type { ChunkAead, ChunkCipher } from "@svc/protocol/transfer";
import { nodeAesGcmChunkCipher, nodeChunkCipher } from "./node-chunk-cipher.js";
import { sodiumChunkCipher } from "./sodium-chunk-cipher.js";

let sodium: ChunkCipher | undefined | null;

/** libsodium's in-place ChaCha20-Poly1305 where sodium-native loads; undefined elsewhere. */
export function inPlaceChaCha(): ChunkCipher | undefined {
  if (sodium === undefined) {
    try {
      sodium = sodiumChunkCipher();
    } catch {
      sodium = null;
    }
  }
  return sodium ?? undefined;
}

/**
 * The fastest cipher here of an AEAD: for ChaCha20-Poly1305, libsodium's in-place one where
 * sodium-native loads, else node:crypto's; for AES-256-GCM, node:crypto's (sodium-native has
 * none).
 */
export function defaultChunkCipher(aead: ChunkAead = "chacha20-poly1305"): ChunkCipher {
  if (aead === "aes-256-gcm") return nodeAesGcmChunkCipher;
  return inPlaceChaCha() ?? nodeChunkCipher;
}
