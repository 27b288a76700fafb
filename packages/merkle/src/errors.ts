import { CodedError } from "@svc/canonical";

/** Stable codes of {@link MerkleError}. */
export type MerkleErrorCode =
  /** A proof or root needs a stored subtree hash the node source did not return. */
  | "MERKLE_MISSING_NODE"
  /** An encoded map proof is not `bitmap(32) || siblings(32 each)` with one sibling per set bit. */
  | "MERKLE_MALFORMED_PROOF";

/** The one error class of @svc/merkle; verifiers never throw it, they return false. */
export class MerkleError extends CodedError<MerkleErrorCode> {
  override readonly name = "MerkleError";

  constructor(code: MerkleErrorCode, message: string) {
    super(code, message);
  }
}
