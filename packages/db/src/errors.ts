import { CodedError } from "@svc/canonical";

/** Stable codes of {@link MoveRefused}. */
export type MoveRefusalCode =
  /** The data directory holds no embedded database. */
  | "SOURCE_MISSING"
  /** A server (or another process) has the embedded database open. */
  | "SOURCE_IN_USE"
  /** The source has a table that this version's migrations do not make. */
  | "UNKNOWN_TABLE"
  /** A table of the target already holds rows. */
  | "TARGET_NOT_EMPTY"
  /** A table's row count in the target is not the source's after the copy. */
  | "COUNT_MISMATCH";

/** The one error class of @svc/db: the move did not happen, and nothing was written to the target. */
export class MoveRefused extends CodedError<MoveRefusalCode> {
  override readonly name = "MoveRefused";
}
