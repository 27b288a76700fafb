import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { silentProgress, terminalSpinner } from "./progress.js";

const ERASE = "\r\x1b[K";

describe("progress", () => {
  it("shows nothing for work that ends before the delay", async () => {
    const written: string[] = [];
    const spinner = terminalSpinner({ write: (chunk) => written.push(chunk) }, 200, 10);
    expect(await spinner.progress("sending", sleep(5, "done"))).toBe("done");
    spinner.clear();
    await sleep(250);
    expect(written).toEqual([]);
  });

  it("spins after the delay and erases its line when the work settles, even on failure", async () => {
    const written: string[] = [];
    const spinner = terminalSpinner({ write: (chunk) => written.push(chunk) }, 20, 10);
    const failing = sleep(100).then(() => Promise.reject(new Error("refused")));
    await expect(spinner.progress("registering", failing)).rejects.toThrow("refused");
    expect(written.length).toBeGreaterThan(2);
    expect(written[0]).toMatch(/^\r. registering$/);
    expect(written.at(-1)).toBe(ERASE);
    const count = written.length;
    await sleep(50);
    spinner.clear();
    expect(written.length).toBe(count);
  });

  it("clear erases a drawn spinner once, so that a line written next starts clean", async () => {
    const written: string[] = [];
    const spinner = terminalSpinner({ write: (chunk) => written.push(chunk) }, 0, 1000);
    const work = spinner.progress("fetching queued messages", sleep(60));
    await sleep(20);
    spinner.clear();
    spinner.clear();
    written.push("alice:1: hi\n");
    await work;
    expect(written).toEqual(["\r⠋ fetching queued messages", ERASE, "alice:1: hi\n"]);
  });

  it("silent progress only awaits", async () => {
    expect(await silentProgress("x", Promise.resolve(7))).toBe(7);
  });
});
