import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { silentProgress, spinnerProgress } from "./progress.js";

describe("progress", () => {
  it("shows nothing for work that ends before the delay", async () => {
    const written: string[] = [];
    const progress = spinnerProgress({ write: (chunk) => written.push(chunk) }, 200, 10);
    expect(await progress("sending", sleep(5, "done"))).toBe("done");
    await sleep(250);
    expect(written).toEqual([]);
  });

  it("spins after the delay and erases its line when the work settles, even on failure", async () => {
    const written: string[] = [];
    const progress = spinnerProgress({ write: (chunk) => written.push(chunk) }, 20, 10);
    const failing = sleep(100).then(() => Promise.reject(new Error("refused")));
    await expect(progress("registering", failing)).rejects.toThrow("refused");
    expect(written.length).toBeGreaterThan(2);
    expect(written[0]).toMatch(/^\r. registering$/);
    expect(written.at(-1)).toBe("\r\x1b[K");
    const count = written.length;
    await sleep(50);
    expect(written.length).toBe(count);
  });

  it("silent progress only awaits", async () => {
    expect(await silentProgress("x", Promise.resolve(7))).toBe(7);
  });
});
