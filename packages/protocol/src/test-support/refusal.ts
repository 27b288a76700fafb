import { SvcError } from "../errors.js";

/** The SvcError that `run` throws; anything else (or no throw) fails the test. */
export function refusal(run: () => unknown): SvcError {
  try {
    run();
  } catch (error) {
    if (error instanceof SvcError) return error;
    throw error;
  }
  throw new Error("expected an SvcError");
}

/** Runs `run` on untrusted input: it may return or refuse with a 400, nothing else. */
export function returnsOrRefuses400(run: () => unknown): void {
  try {
    run();
  } catch (error) {
    if (!(error instanceof SvcError) || error.code !== "SVC_BAD_REQUEST" || error.status !== 400) {
      throw error;
    }
  }
}
