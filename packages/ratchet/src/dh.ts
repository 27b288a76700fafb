import { x25519 } from "@noble/curves/ed25519.js";
import { KEY_SIZE } from "./assert.js";
import { RatchetError } from "./errors.js";
import { drawRandom, type RandomBytes } from "./random.js";

export interface DhKeyPair {
  privateKey: Uint8Array;
  publicKey: Uint8Array;
}

/** GENERATE_DH(): a new X25519 key pair from 32 random bytes (clamped by X25519 itself). */
export function generateDh(random: RandomBytes): DhKeyPair {
  const privateKey = drawRandom(random, KEY_SIZE);
  return { privateKey, publicKey: x25519.getPublicKey(privateKey) };
}

/** DH(dh_pair, dh_pub): X25519. A small-order public key (all-zero output) is refused. */
export function dh(privateKey: Uint8Array, publicKey: Uint8Array): Uint8Array {
  try {
    return x25519.getSharedSecret(privateKey, publicKey);
  } catch {
    throw new RatchetError("RATCHET_INVALID_KEY", "X25519 public key of small order");
  }
}
