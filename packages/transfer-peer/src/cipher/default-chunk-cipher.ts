import type { ChunkCipher } from "@svc/protocol/transfer";
import { nodeChunkCipher } from "./node-chunk-cipher.js";
import { sodiumChunkCipher } from "./sodium-chunk-cipher.js";

let chosen: ChunkCipher | undefined;

/** libsodium's in-place cipher where sodium-native loads, else node:crypto's. */
export function defaultChunkCipher(): ChunkCipher {
  if (chosen === undefined) {
    try {
      chosen = sodiumChunkCipher();
    } catch {
      chosen = nodeChunkCipher;
    }
  }
  return chosen;
}
