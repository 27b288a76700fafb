import { fileURLToPath } from "node:url";
import { canPin, spawnPinnedNode } from "@svc/processes";
import { measureRatchet, type RatchetRates, type RatchetTiming } from "./workloads.js";

/** The Node measurement, and whether it ran on one core. */
export interface NodeRatchetRates {
  rates: RatchetRates;
  pinned: boolean;
}

/**
 * "On one core" taken literally: the workloads run in a child process pinned to CPU 0 with
 * taskset, so V8's helper threads (concurrent marking, the compiler) share that core instead of
 * borrowing the machine's others. Without taskset (not Linux) they run unpinned in this process.
 */
export async function nodeRatchetRates(
  timing: Omit<RatchetTiming, "cpuMs">,
): Promise<NodeRatchetRates> {
  if (!canPin())
    return { rates: await measureRatchet({ ...timing, cpuMs: processCpuMs }), pinned: false };
  const { spawned } = spawnPinnedNode(fileURLToPath(import.meta.url), [], {
    inheritEnv: true,
    env: { SVC_RATCHET_TIMING: JSON.stringify(timing) },
  });
  const code = await spawned.exited;
  if (code !== 0) {
    throw new Error(`the pinned ratchet measurement exited with ${code}: ${spawned.out.stderr}`);
  }
  return { rates: JSON.parse(spawned.out.stdout) as RatchetRates, pinned: true };
}

export function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

if (process.env.SVC_RATCHET_TIMING && process.argv[1] === fileURLToPath(import.meta.url)) {
  const timing = JSON.parse(process.env.SVC_RATCHET_TIMING) as Omit<RatchetTiming, "cpuMs">;
  process.stdout.write(JSON.stringify(await measureRatchet({ ...timing, cpuMs: processCpuMs })));
}
