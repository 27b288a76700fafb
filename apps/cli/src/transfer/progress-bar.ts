/** What a send reports as it goes. */
export interface SendProgress {
  bytes: number;
  total: number;
  /** Bytes per second, smoothed. */
  rate: number;
  /** Seconds left at that rate; undefined before there is a rate. */
  etaSeconds: number | undefined;
}

const WIDTH = 24;

/** One line: a bar, the share done, bytes of total, the rate and the time left. */
export function progressLine(progress: SendProgress): string {
  const share = progress.total === 0 ? 1 : Math.min(1, progress.bytes / progress.total);
  const filled = Math.round(share * WIDTH);
  const bar = `${"=".repeat(filled)}${filled < WIDTH ? ">" : ""}`.padEnd(WIDTH + 1).slice(0, WIDTH);
  const eta = progress.etaSeconds === undefined ? "--:--" : clock(progress.etaSeconds);
  return `[${bar}] ${(share * 100).toFixed(0).padStart(3)}% ${size(progress.bytes)} / ${size(progress.total)}  ${size(progress.rate)}/s  ETA ${eta}`;
}

/**
 * Redraws the progress line on a terminal at most every `intervalMs`; `done` erases it so that
 * the result prints on a clean line.
 */
export function terminalProgressBar(
  stream: { write(chunk: string): unknown },
  intervalMs = 100,
): { update(progress: SendProgress): void; done(): void } {
  let last = 0;
  let drawn = false;
  return {
    update(progress) {
      const now = Date.now();
      if (now - last < intervalMs && progress.bytes < progress.total) return;
      last = now;
      stream.write(`\r\x1b[K${progressLine(progress)}`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write("\r\x1b[K");
      drawn = false;
    },
  };
}

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"];

function size(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${UNITS[unit]}`;
}

function clock(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}
