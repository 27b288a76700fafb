/** Runs `work`, telling a person at a terminal what is going on if it takes a while. */
export type Progress = <T>(label: string, work: Promise<T>) => Promise<T>;

/** For scripts (--json, or stderr not a terminal): nothing is shown. */
export const silentProgress: Progress = (_label, work) => work;

const FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";

/**
 * A spinner and `label` on `stream` (a terminal's stderr) once `work` has taken over `delayMs`;
 * the line is erased when the work settles, so what follows starts on a clean line.
 */
export function spinnerProgress(
  stream: { write(chunk: string): unknown },
  delayMs = 1000,
  frameMs = 80,
): Progress {
  return async (label, work) => {
    let frame = 0;
    let spinning: ReturnType<typeof setInterval> | undefined;
    const draw = () => stream.write(`\r${FRAMES[frame++ % FRAMES.length]} ${label}`);
    const start = setTimeout(() => {
      draw();
      spinning = setInterval(draw, frameMs);
    }, delayMs);
    try {
      return await work;
    } finally {
      clearTimeout(start);
      if (spinning !== undefined) {
        clearInterval(spinning);
        stream.write("\r\x1b[K");
      }
    }
  };
}
