import { spawnSync } from "node:child_process";
import { type SpawnedProcess, type SpawnOptions, spawnProcess } from "./spawn.js";

let tasksetWorks: boolean | undefined;

/** Whether `taskset` can pin a process to a CPU here (Linux with util-linux). */
export function canPin(): boolean {
  tasksetWorks ??= spawnSync("taskset", ["-c", "0", "true"], { stdio: "ignore" }).status === 0;
  return tasksetWorks;
}

/**
 * `node <script> <args>` pinned with taskset to one CPU (`cpu`, 0 by default), so that V8's
 * helper threads (concurrent marking, the compiler) share that core instead of borrowing the
 * machine's others: a measurement "on one core" taken literally. Where taskset cannot pin (not
 * Linux) the process runs unpinned, and `pinned` says so.
 */
export function spawnPinnedNode(
  script: string,
  args: string[] = [],
  options: SpawnOptions & { cpu?: number } = {},
): { spawned: SpawnedProcess; pinned: boolean } {
  const { cpu = 0, ...spawnOptions } = options;
  if (!Number.isSafeInteger(cpu) || cpu < 0) throw new RangeError("cpu must be a CPU number");
  const node = [process.execPath, script, ...args];
  const pinned = canPin();
  const [command, ...commandArgs] = pinned ? ["taskset", "-c", String(cpu), ...node] : node;
  return { spawned: spawnProcess(command as string, commandArgs, spawnOptions), pinned };
}
