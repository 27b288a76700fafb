import { describe, expect, it } from "vitest";
import { canPin, spawnPinnedNode } from "./pinned-spawn.js";

/** Prints the CPUs the process may run on, as Linux lists them. */
const AFFINITY = `
const status = require("node:fs").readFileSync("/proc/self/status", "utf8");
process.stdout.write(/Cpus_allowed_list:\\s*(\\S+)/.exec(status)[1]);
`;

describe("spawnPinnedNode", () => {
  it.skipIf(!canPin())("runs node on the one CPU asked for", async () => {
    const { spawned, pinned } = spawnPinnedNode("-e", [AFFINITY]);
    expect(pinned).toBe(true);
    expect(await spawned.exited).toBe(0);
    expect(spawned.out.stdout).toBe("0");
  });

  it.skipIf(canPin())("runs node unpinned where taskset cannot pin, and says so", async () => {
    const { spawned, pinned } = spawnPinnedNode("-e", ["process.stdout.write('ran')"]);
    expect(pinned).toBe(false);
    expect(await spawned.exited).toBe(0);
    expect(spawned.out.stdout).toBe("ran");
  });

  it("refuses a CPU that is not one", () => {
    expect(() => spawnPinnedNode("-e", [""], { cpu: -1 })).toThrow(RangeError);
  });
});
