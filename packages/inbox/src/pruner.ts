import type { InboxStore } from "./store.js";

export interface PrunerOptions {
  intervalMs: number;
  /** After every cycle, with the number of blobs it deleted. */
  onCycle?: (pruned: number) => void;
  onError?: (error: unknown) => void;
}

/**
 * Deletes expired blobs every `intervalMs` (a cycle never overlaps the previous one; the timer
 * does not keep the process alive). Resolves `stop()` once no cycle is running.
 */
export function startPruner(store: InboxStore, options: PrunerOptions): () => Promise<void> {
  if (!Number.isSafeInteger(options.intervalMs) || options.intervalMs < 1) {
    throw new RangeError("intervalMs must be a positive integer");
  }
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  const schedule = () => {
    timer = setTimeout(() => {
      running = cycle().finally(() => {
        if (!stopped) schedule();
      });
    }, options.intervalMs);
    timer.unref();
  };

  async function cycle(): Promise<void> {
    try {
      const pruned = await store.pruneExpired();
      options.onCycle?.(pruned);
    } catch (error) {
      options.onError?.(error);
    }
  }

  schedule();
  return async function stop() {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
