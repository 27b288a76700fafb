import { equalBytes } from "@svc/canonical";
import { KtVerifyError } from "./errors.js";
import type { KtKemClaim } from "./proof.js";

/**
 * Format 3 inclusion: the answer's KEM prekey against the last-resort KEM key hash the proven
 * leaf commits to (`logged`, undefined when it commits none). A last-resort key must be the
 * logged one (KT_KEM_MISMATCH, also when none is logged); a leaf that commits a key is never
 * answered without a KEM prekey (KT_KEM_MISSING: a downgrade to classic session setup). A
 * one-time KEM prekey is not in the log.
 */
export function checkKemClaim(
  logged: Uint8Array | undefined,
  answered: KtKemClaim | undefined,
): void {
  if (answered === undefined) {
    if (logged === undefined) return;
    throw new KtVerifyError(
      "KT_KEM_MISSING",
      "the log commits a last-resort KEM key for this identity, but the bundle has no KEM prekey",
    );
  }
  if (!answered.lastResort) return;
  if (logged === undefined) {
    throw new KtVerifyError(
      "KT_KEM_MISMATCH",
      "the bundle's last-resort KEM key is not logged: the identity's leaf commits none",
    );
  }
  if (!equalBytes(answered.keyHash, logged)) {
    throw new KtVerifyError(
      "KT_KEM_MISMATCH",
      "the bundle's last-resort KEM key is not the logged one (its SHA-256 differs)",
    );
  }
}
