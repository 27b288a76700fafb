import { type Ed25519Verifier, equalBytes } from "@svc/canonical";
import { PrekeyError } from "./errors.js";
import type { KemPreKey, SignedPreKey } from "./types.js";

/** D5: a later register must name exactly the stored identity keys (rotation = delete first). */
export function requireSameIdentity(
  stored: { identitySigningKey: Uint8Array; identityDHKey: Uint8Array },
  claimed: { identitySigningKey: Uint8Array; identityDHKey: Uint8Array },
): void {
  if (
    !equalBytes(stored.identitySigningKey, claimed.identitySigningKey) ||
    !equalBytes(stored.identityDHKey, claimed.identityDHKey)
  ) {
    throw new PrekeyError(
      "SVC_IDENTITY_MISMATCH",
      "identity keys differ from the registered ones; delete the identity to rotate it",
    );
  }
}

/** D5: the signed prekey's signature is Ed25519 by the identity key over its 32 raw bytes. */
export function verifySignedPreKey(
  verifier: Ed25519Verifier,
  identitySigningKey: Uint8Array,
  signedPreKey: SignedPreKey,
): void {
  if (!verifier.verify(signedPreKey.signature, signedPreKey.publicKey, identitySigningKey)) {
    throw new PrekeyError(
      "SVC_INVALID_SIGNED_PREKEY",
      "signedPreKey.signature does not verify with the identity signing key",
    );
  }
}

/** A KEM prekey's signature is Ed25519 by the identity key over its 1568 raw key bytes. */
export function verifyKemPreKey(
  verifier: Ed25519Verifier,
  identitySigningKey: Uint8Array,
  kemPreKey: KemPreKey,
  field: string,
): void {
  if (!verifier.verify(kemPreKey.signature, kemPreKey.publicKey, identitySigningKey)) {
    throw new PrekeyError(
      "SVC_INVALID_KEM_PREKEY",
      `${field}.signature does not verify with the identity signing key`,
    );
  }
}
