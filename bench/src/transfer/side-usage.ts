import { readFileSync } from "node:fs";

/** What one side of a transfer cost its own process. */
export interface SideUsage {
  /** User + system CPU of the whole process (every thread) since tracking began. */
  cpuSeconds: number;
  /** The process's peak resident set since it started, in bytes. */
  peakRssBytes: number;
}

const SAMPLE_MS = 50;

/**
 * Starts counting this process's CPU and watching its RSS. The peak is the kernel's high-water
 * mark (VmHWM) where /proc has it, which no sampling interval can miss; elsewhere the largest of
 * the samples taken every 50 ms.
 */
export function trackUsage(): { read(): SideUsage } {
  const started = process.cpuUsage();
  let sampled = process.memoryUsage().rss;
  const timer = setInterval(() => {
    sampled = Math.max(sampled, process.memoryUsage().rss);
  }, SAMPLE_MS);
  timer.unref();
  return {
    read() {
      const { user, system } = process.cpuUsage(started);
      sampled = Math.max(sampled, process.memoryUsage().rss);
      return {
        cpuSeconds: (user + system) / 1e6,
        peakRssBytes: Math.max(sampled, highWaterMark() ?? 0),
      };
    },
  };
}

function highWaterMark(): number | undefined {
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}
