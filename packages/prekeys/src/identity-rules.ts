import type { Ed25519Verifier } from "@svc/canonical";
import { PrekeyError } from "./errors.js";
import type { SignedPreKey } from "./types.js";

/** D5: a later register must name exactly the stored identity keys (rotation = delete first). */
export function requireSameIdentity(
  stored: { identitySigningKey: Uint8Array; identityDHKey: Uint8Array },
  claimed: { identitySigningKey: Uint8Array; identityDHKey: Uint8Array },
): void {
  if (
    !bytesEqual(stored.identitySigningKey, claimed.identitySigningKey) ||
    !bytesEqual(stored.identityDHKey, claimed.identityDHKey)
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

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
