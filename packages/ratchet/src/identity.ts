import { ed25519 } from "@noble/curves/ed25519.js";
import type { IdentityKeys, KemPreKey, OneTimePreKey, SignedPreKey } from "@svc/protocol";
import { assertKey, assertKeyId, KEY_SIZE } from "./assert.js";
import { generateDh } from "./dh.js";
import { KEM_SEED_SIZE, kemKeyPair } from "./kem.js";
import { defaultRandom, drawRandom, type RandomBytes } from "./random.js";

/**
 * A long-term identity: an Ed25519 signing key pair and a separate X25519 key pair, the two
 * public keys being what the directory stores (identitySigningKey, identityDHKey).
 */
export interface Identity extends IdentityKeys {
  /** The 32-byte Ed25519 seed (RFC 8032 private key). */
  signingPrivateKey: Uint8Array;
  identityDHPrivateKey: Uint8Array;
}

export interface SignedPreKeyPair extends SignedPreKey {
  privateKey: Uint8Array;
}

export interface OneTimePreKeyPair extends OneTimePreKey {
  privateKey: Uint8Array;
}

export interface KemPreKeyPair extends KemPreKey {
  /** The 64-byte ML-KEM keygen seed d || z; the decapsulation key is derived from it. */
  seed: Uint8Array;
}

export interface RandomOption {
  /** Defaults to globalThis.crypto.getRandomValues. */
  random?: RandomBytes;
}

export function createIdentity({ random = defaultRandom }: RandomOption = {}): Identity {
  const signingPrivateKey = drawRandom(random, KEY_SIZE);
  const dh = generateDh(random);
  return {
    identitySigningKey: ed25519.getPublicKey(signingPrivateKey),
    identityDHKey: dh.publicKey,
    signingPrivateKey,
    identityDHPrivateKey: dh.privateKey,
  };
}

/** A new X25519 prekey signed by the identity, to register with the directory. */
export function createSignedPreKey(
  identity: Identity,
  keyId: number,
  { random = defaultRandom }: RandomOption = {},
): SignedPreKeyPair {
  assertKey("identity.signingPrivateKey", identity?.signingPrivateKey);
  assertKeyId("keyId", keyId);
  const { privateKey, publicKey } = generateDh(random);
  const signature = ed25519.sign(publicKey, identity.signingPrivateKey);
  return { keyId, publicKey, signature, privateKey };
}

export function createOneTimePreKey(
  keyId: number,
  { random = defaultRandom }: RandomOption = {},
): OneTimePreKeyPair {
  assertKeyId("keyId", keyId);
  const { privateKey, publicKey } = generateDh(random);
  return { keyId, publicKey, privateKey };
}

/** A new ML-KEM-1024 prekey signed by the identity (its 1568 raw key bytes), for PQXDH. */
export function createKemPreKey(
  identity: Identity,
  keyId: number,
  { random = defaultRandom }: RandomOption = {},
): KemPreKeyPair {
  assertKey("identity.signingPrivateKey", identity?.signingPrivateKey);
  assertKeyId("keyId", keyId);
  const seed = drawRandom(random, KEM_SEED_SIZE);
  const { publicKey } = kemKeyPair(seed);
  const signature = ed25519.sign(publicKey, identity.signingPrivateKey);
  return { keyId, publicKey, signature, seed };
}
