import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) the processes `pids` have used so far, from /proc/<pid>/stat;
 * undefined where that cannot be read (not Linux, a process gone, or none given).
 */
export function cpuSeconds(pids: readonly number[]): number | undefined {
  if (pids.length === 0) return undefined;
  let ticks = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      return undefined;
    }
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / TICKS_PER_SECOND;
}
