/** Runs `work`, telling a person at a terminal what is going on if it takes a while. */
export type Progress = <T>(label: string, work: Promise<T>) => Promise<T>;

/** For scripts (--json, or stderr not a terminal): nothing is shown. */
export const silentProgress: Progress = (_label, work) => work;

const FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";

/** A spinner on a terminal's stderr; `clear` erases it so that a line can be written there. */
export interface Spinner {
  progress: Progress;
  /** Erases the spinner's line, if drawn; the next frame draws it again below what was written. */
  clear(): void;
}

/**
 * Shows a spinner and the label on `stream` once a piece of work has taken over `delayMs`; the
 * line is erased when the work settles.
 */
export function terminalSpinner(
  stream: { write(chunk: string): unknown },
  delayMs = 1000,
  frameMs = 80,
): Spinner {
  let drawn = false;
  const clear = () => {
    if (!drawn) return;
    stream.write("\r\x1b[K");
    drawn = false;
  };
  const progress: Progress = async (label, work) => {
    let frame = 0;
    let spinning: ReturnType<typeof setInterval> | undefined;
    const draw = () => {
      stream.write(`\r${FRAMES[frame++ % FRAMES.length]} ${label}`);
      drawn = true;
    };
    const start = setTimeout(() => {
      draw();
      spinning = setInterval(draw, frameMs);
    }, delayMs);
    try {
      return await work;
    } finally {
      clearTimeout(start);
      clearInterval(spinning);
      clear();
    }
  };
  return { progress, clear };
}
