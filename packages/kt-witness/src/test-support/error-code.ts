import { WitnessError } from "../errors.js";

/** The code of the WitnessError that `f` rejects with; "no error" or the foreign error's name. */
export async function codeOf(f: () => unknown): Promise<string> {
  try {
    await f();
  } catch (error) {
    return error instanceof WitnessError ? error.code : `not a WitnessError: ${error}`;
  }
  return "no error";
}
