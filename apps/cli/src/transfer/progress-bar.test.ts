import { describe, expect, it } from "vitest";
import { progressLine, terminalProgressBar } from "./progress-bar.js";

describe("progress bar", () => {
  it("shows share, bytes, rate and time left", () => {
    expect(
      progressLine({
        bytes: 512 * 1024 ** 2,
        total: 1024 ** 3,
        rate: 100 * 1024 ** 2,
        etaSeconds: 5.2,
      }),
    ).toBe("[============>           ]  50% 512.0 MiB / 1.0 GiB  100.0 MiB/s  ETA 0:05");
    expect(progressLine({ bytes: 0, total: 10, rate: 0, etaSeconds: undefined })).toMatch(
      /^\[>\s+\] {3}0% 0 B \/ 10 B {2}0 B\/s {2}ETA --:--$/,
    );
    expect(progressLine({ bytes: 0, total: 0, rate: 0, etaSeconds: 0 })).toMatch(/100%/);
    expect(progressLine({ bytes: 1, total: 2, rate: 1, etaSeconds: 3725 })).toMatch(/ETA 1:02:05$/);
  });

  it("redraws in place at most once per interval, and always the last update", () => {
    const written: string[] = [];
    const bar = terminalProgressBar({ write: (chunk: string) => written.push(chunk) }, 60_000);
    bar.update({ bytes: 1, total: 4, rate: 1, etaSeconds: 3 });
    bar.update({ bytes: 2, total: 4, rate: 1, etaSeconds: 2 });
    bar.update({ bytes: 4, total: 4, rate: 1, etaSeconds: 0 });
    bar.done();
    expect(written).toHaveLength(3);
    expect(written[0]?.startsWith("\r\x1b[K[")).toBe(true);
    expect(written[1]).toMatch(/100%/);
    expect(written[2]).toBe("\r\x1b[K");
  });
});
