import type { StoredState } from "./state.js";

/**
 * Where a client keeps its one identity's state. Implementations make save atomic (a reader sees
 * the old state or the new one, never a mix) and allow one writer at a time.
 */
export interface KeyStore {
  load(): Promise<StoredState | undefined>;
  save(state: StoredState): Promise<void>;
  /** Releases what the store holds (a file store's lock); SvcClient.close() calls it. */
  close?(): Promise<void>;
}

/** A store in memory, kept as JSON text so that it holds exactly what a file store would. */
export function memoryStore(): KeyStore {
  let text: string | undefined;
  return {
    async load() {
      return text === undefined ? undefined : (JSON.parse(text) as StoredState);
    },
    async save(state) {
      text = JSON.stringify(state);
    },
  };
}
