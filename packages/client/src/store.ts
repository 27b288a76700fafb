import { SerialQueue } from "@svc/canonical";
import type { StoredState } from "./state.js";

/**
 * Where a client keeps its one identity's state. Implementations make save atomic (a reader sees
 * the old state or the new one, never a mix).
 */
export interface KeyStore {
  load(): Promise<StoredState | undefined>;
  save(state: StoredState): Promise<void>;
  /**
   * Runs `task` as the store's only user, across every client (and process) sharing the store:
   * SvcClient runs each change of its state as one, loading the latest state at its start and
   * saving before it ends, so clients sharing a store see each other's changes. Without it a
   * store must have one client at a time.
   */
  transaction?<T>(task: () => Promise<T>): Promise<T>;
  /** Releases what the store holds; SvcClient.close() calls it. */
  close?(): Promise<void>;
}

/** A store in memory, kept as JSON text so that it holds exactly what a file store would. */
export function memoryStore(): KeyStore {
  let text: string | undefined;
  const queue = new SerialQueue();
  return {
    async load() {
      return text === undefined ? undefined : (JSON.parse(text) as StoredState);
    },
    async save(state) {
      text = JSON.stringify(state);
    },
    transaction: (task) => queue.run(task),
  };
}
