import type { SignedNoteError } from "../errors.js";

/** The code of the SignedNoteError that `f` throws; undefined when it throws none. */
export function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (error) {
    return (error as SignedNoteError).code;
  }
  return undefined;
}
