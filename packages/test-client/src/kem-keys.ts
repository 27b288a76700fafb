import { shake256 } from "@noble/hashes/sha3.js";
import { encodeBase64 } from "@svc/canonical";
import { type KemPreKeyJson, ML_KEM_1024 } from "@svc/protocol";
import type { TestIdentity } from "./keys.js";

/**
 * KEM prekey entries signed by `identity`, keyed `keyIds`: 1568 bytes derived from `label` and the
 * keyId stand in for ML-KEM-1024 keys, which the directory stores and serves without using them;
 * `label` picks the key material so a test can make conflicting ones.
 */
export function kemPreKeys(
  identity: TestIdentity,
  keyIds: number[],
  label = "kem",
): KemPreKeyJson[] {
  return keyIds.map((keyId) =>
    signedKemPreKey(
      identity,
      keyId,
      shake256(new TextEncoder().encode(`${label}/${keyId}`), { dkLen: ML_KEM_1024.publicKey }),
    ),
  );
}

export function kemPreKey(identity: TestIdentity, keyId: number, label = "kem"): KemPreKeyJson {
  return kemPreKeys(identity, [keyId], label)[0] as KemPreKeyJson;
}

/** `count` KEM prekey entries from keyId `from` with random key bytes, for load generators. */
export function randomKemPreKeys(
  identity: TestIdentity,
  from: number,
  count: number,
): KemPreKeyJson[] {
  return Array.from({ length: count }, (_, i) =>
    signedKemPreKey(
      identity,
      from + i,
      crypto.getRandomValues(new Uint8Array(ML_KEM_1024.publicKey)),
    ),
  );
}

function signedKemPreKey(
  identity: TestIdentity,
  keyId: number,
  publicKey: Uint8Array,
): KemPreKeyJson {
  return {
    keyId,
    publicKey: encodeBase64(publicKey),
    signature: encodeBase64(identity.signer.sign(publicKey)),
  };
}
