import { createHash } from "node:crypto";
import type { Ed25519Verifier } from "@svc/canonical";
import { type KemPreKey, verifyKemPreKey } from "@svc/prekeys";
import { decodeKemPreKey, decodeKemPreKeys, type KemPreKeyJson } from "@svc/protocol";

/** The KEM members of a register or replenish body. */
export interface KemUpload {
  kemLastResortPreKey?: KemPreKey;
  kemPreKeys: KemPreKey[];
}

/** The body's KEM members with their lengths checked (400 SVC_INVALID_KEM_PREKEY). */
export function decodeKemUpload(fields: {
  kemLastResortPreKey?: KemPreKeyJson;
  kemPreKeys?: KemPreKeyJson[];
}): KemUpload {
  const upload: KemUpload = { kemPreKeys: decodeKemPreKeys(fields.kemPreKeys) };
  if (fields.kemLastResortPreKey) {
    upload.kemLastResortPreKey = decodeKemPreKey(fields.kemLastResortPreKey, "kemLastResortPreKey");
  }
  return upload;
}

/** Every KEM prekey of `upload` signed by the identity (400 SVC_INVALID_KEM_PREKEY otherwise). */
export function verifyKemUpload(
  verifier: Ed25519Verifier,
  identitySigningKey: Uint8Array,
  upload: KemUpload,
): void {
  if (upload.kemLastResortPreKey) {
    verifyKemPreKey(
      verifier,
      identitySigningKey,
      upload.kemLastResortPreKey,
      "kemLastResortPreKey",
    );
  }
  upload.kemPreKeys.forEach((kemPreKey, i) => {
    verifyKemPreKey(verifier, identitySigningKey, kemPreKey, `kemPreKeys.${i}`);
  });
}

/**
 * `{kemKeyHash}`, the SHA-256 of the last-resort KEM key that a key-transparency leaf commits,
 * for an identity change; nothing without a key, so a classic identity's change is as before.
 */
export function kemKeyHashOf(kemLastResortPreKey: KemPreKey | undefined): {
  kemKeyHash?: Uint8Array;
} {
  if (!kemLastResortPreKey) return {};
  return {
    kemKeyHash: new Uint8Array(createHash("sha256").update(kemLastResortPreKey.publicKey).digest()),
  };
}
