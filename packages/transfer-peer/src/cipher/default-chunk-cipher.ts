import type { ChunkCipher, TransferVersion } from "@svc/protocol/transfer";
import { nodeAesGcmChunkCipher, nodeChunkCipher } from "./node-chunk-cipher.js";
import { sodiumChunkCipher } from "./sodium-chunk-cipher.js";

let chosen: ChunkCipher | undefined;

/**
 * The fastest cipher here of a version's AEAD: for version 1 (ChaCha20-Poly1305), libsodium's
 * in-place one where sodium-native loads, else node:crypto's; for version 2 (AES-256-GCM),
 * node:crypto's (sodium-native has no AES-GCM).
 */
export function defaultChunkCipher(version: TransferVersion = 1): ChunkCipher {
  if (version === 2) return nodeAesGcmChunkCipher;
  if (chosen === undefined) {
    try {
      chosen = sodiumChunkCipher();
    } catch {
      chosen = nodeChunkCipher;
    }
  }
  return chosen;
}
