import { join, resolve } from "node:path";
import { acquirePidLock } from "@svc/node-kit";
import { WitnessError } from "./errors.js";

/** The lock file of a state directory: the holder's pid and a newline. */
export const LOCK_FILE = ".lock";

/**
 * Takes `<dir>/.lock` for this process (a pid lock of @svc/node-kit), so that one state directory
 * serves one witness process (the per-origin queue that keeps the state from going back lives in
 * that process). A lock whose process is gone (killed with -9) is taken over; one held by a live
 * process throws WitnessError WITNESS_STATE_LOCKED. Resolves to the function that releases it.
 */
export function lockStateDir(dir: string): Promise<() => Promise<void>> {
  const path = resolve(join(dir, LOCK_FILE));
  return acquirePidLock(path, {
    whenHeld: (pid) =>
      new WitnessError(
        "WITNESS_STATE_LOCKED",
        `${path} is held by process ${pid}: one state directory serves one witness (remove the file if no witness runs on it)`,
      ),
  });
}
