import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { measureSetup, type SetupRates, type SetupTiming } from "./setup.js";
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
  if (!hasTaskset())
    return { rates: await measureRatchet({ ...timing, cpuMs: processCpuMs }), pinned: false };
  return { rates: await pinnedChild<RatchetRates>("SVC_RATCHET_TIMING", timing), pinned: true };
}

/** Session setup (X3DH, PQXDH, raw ML-KEM), pinned like {@link nodeRatchetRates}. */
export async function nodeSetupRates(
  timing: Omit<SetupTiming, "cpuMs">,
): Promise<{ rates: SetupRates; pinned: boolean }> {
  if (!hasTaskset())
    return { rates: await measureSetup({ ...timing, cpuMs: processCpuMs }), pinned: false };
  return { rates: await pinnedChild<SetupRates>("SVC_RATCHET_SETUP_TIMING", timing), pinned: true };
}

/** This file again, pinned to CPU 0, told what to measure by `variable`; answers its JSON. */
async function pinnedChild<T>(variable: string, timing: object): Promise<T> {
  const child = spawn("taskset", ["-c", "0", process.execPath, fileURLToPath(import.meta.url)], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, [variable]: JSON.stringify(timing) },
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`the pinned ratchet measurement exited with ${code}`);
  return JSON.parse(output) as T;
}

function hasTaskset(): boolean {
  return spawnSync("taskset", ["-c", "0", "true"], { stdio: "ignore" }).status === 0;
}

export function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { SVC_RATCHET_TIMING: ratchet, SVC_RATCHET_SETUP_TIMING: setup } = process.env;
  if (ratchet) {
    const timing = JSON.parse(ratchet) as Omit<RatchetTiming, "cpuMs">;
    process.stdout.write(JSON.stringify(await measureRatchet({ ...timing, cpuMs: processCpuMs })));
  } else if (setup) {
    const timing = JSON.parse(setup) as Omit<SetupTiming, "cpuMs">;
    process.stdout.write(JSON.stringify(await measureSetup({ ...timing, cpuMs: processCpuMs })));
  }
}
