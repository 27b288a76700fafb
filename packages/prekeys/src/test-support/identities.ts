import { createHash } from "node:crypto";
import { ed25519KeyPairFromSeed, ed25519Sign, x25519PublicKeyFromSeed } from "@svc/canonical";
import type { KemPreKey, OneTimePreKey, Registration } from "../types.js";

/** Deterministic 32-byte seed from a label and a number. */
export function seed(label: string, n = 0): Uint8Array {
  return new Uint8Array(createHash("sha256").update(`${label}/${n}`).digest());
}

/** A valid registration of `address` with one-time prekeys keyed `keyIds`. */
export function registration(address: string, label: string, keyIds: number[] = []): Registration {
  const signingSeed = seed(`${label}-signing`);
  const spk = x25519PublicKeyFromSeed(seed(`${label}-spk`));
  return {
    address,
    identitySigningKey: ed25519KeyPairFromSeed(signingSeed).publicKey,
    identityDHKey: x25519PublicKeyFromSeed(seed(`${label}-dh`)),
    signedPreKey: { keyId: 1, publicKey: spk, signature: ed25519Sign(spk, signingSeed) },
    oneTimePreKeys: oneTimePreKeys(label, keyIds),
  };
}

export function oneTimePreKeys(label: string, keyIds: number[]): OneTimePreKey[] {
  return keyIds.map((keyId) => ({
    keyId,
    publicKey: x25519PublicKeyFromSeed(seed(`${label}-otk`, keyId)),
  }));
}

/**
 * Signed KEM prekeys of `label`'s identity keyed `keyIds`: 1568 bytes derived from the label stand
 * in for ML-KEM keys, which the directory stores and serves without using them.
 */
export function kemPreKeys(label: string, keyIds: number[], keyLabel = label): KemPreKey[] {
  const signingSeed = seed(`${label}-signing`);
  return keyIds.map((keyId) => {
    const publicKey = new Uint8Array(
      createHash("shake256", { outputLength: 1568 }).update(`${keyLabel}-kem/${keyId}`).digest(),
    );
    return { keyId, publicKey, signature: ed25519Sign(publicKey, signingSeed) };
  });
}

export function kemPreKey(label: string, keyId: number, keyLabel = label): KemPreKey {
  return kemPreKeys(label, [keyId], keyLabel)[0] as KemPreKey;
}
