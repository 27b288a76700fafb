import { CodedError } from "@svc/canonical";

/** Stable codes of {@link KtVerifyError}. */
export type KtVerifyErrorCode =
  /** Server data is not the documented shape (bad JSON member, base64, length or leaf encoding). */
  | "KT_MALFORMED"
  /** The STH names another log than the pinned operator key, or its checkpoint another origin. */
  | "KT_WRONG_LOG"
  /**
   * The STH signature does not verify with the operator key; or (witness policy) its checkpoint
   * has no valid operator signature, or a trusted key's signature on it does not verify.
   */
  | "KT_BAD_SIGNATURE"
  /** The STH is older than `maxStaleMs`. */
  | "KT_STALE_STH"
  /** The STH is timestamped more than `MAX_FUTURE_SKEW_MS` (10 minutes) ahead of the clock. */
  | "KT_FUTURE_STH"
  /** Two STHs that cannot both be views of one append-only log (a fork). */
  | "KT_FORK"
  /** The log no longer serves a tree size it has signed before (it shrank). */
  | "KT_LOG_SHRANK"
  /** An inclusion or index proof does not verify against its STH. */
  | "KT_BAD_PROOF"
  /** The proven leaf does not match the bundle (address, keys or kind differ). */
  | "KT_KEY_MISMATCH"
  /**
   * Format 3: the bundle's last-resort KEM prekey is not the one the identity's leaf commits to
   * (its SHA-256 differs from the proof's `kemKeyHash`, or the leaf commits none).
   */
  | "KT_KEM_MISMATCH"
  /**
   * Format 3: the identity's leaf commits a last-resort KEM key, but the bundle has no KEM
   * prekey (a downgrade to classic session setup).
   */
  | "KT_KEM_MISSING"
  /** A bundle response that should carry `ktProof` does not. */
  | "KT_PROOF_MISSING"
  /** Fetching a consistency proof, an STH or a checkpoint from the log failed. */
  | "KT_FETCH_FAILED"
  /**
   * Witness policy: the STH comes without a checkpoint, or with fewer valid cosignatures (within
   * the policy's `maxAgeMs`) of distinct policy witnesses than its `threshold`.
   */
  | "KT_WITNESS_QUORUM"
  /** Witness policy: the checkpoint is for another size, root hash or index root than the STH. */
  | "KT_CHECKPOINT_MISMATCH";

/** The one error of @svc/kt-verify; untrusted input never throws anything else. */
export class KtVerifyError extends CodedError<KtVerifyErrorCode> {
  override readonly name = "KtVerifyError";

  constructor(code: KtVerifyErrorCode, message: string) {
    super(code, message);
  }
}
