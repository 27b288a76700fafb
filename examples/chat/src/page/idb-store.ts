import { ClientError, type KeyStore, type StoredState } from "@svc/client";
import { completion, DATABASE, openDatabase, requestResult, STATES } from "./database.js";

/** How long to wait for another tab (or the page being reloaded) to let go of an address. */
const LOCK_WAIT_MS = 3000;

/**
 * A KeyStore in IndexedDB: one record per address, so several addresses can live in one
 * browser. Each save is one transaction with strict durability: once it resolves the state is on
 * disk, and a reload or a crash finds either the previous state or this one, never a mix. One
 * writer at a time: the store holds a Web Lock on its address until close() or the page goes.
 */
export function idbStore(address: string): Required<Omit<KeyStore, "transaction">> {
  const opened = Promise.all([openDatabase(), holdLock(`${DATABASE}:${address}`)]);
  return {
    async load() {
      const [database] = await opened;
      const store = database.transaction(STATES, "readonly").objectStore(STATES);
      return (await requestResult(store.get(address))) as StoredState | undefined;
    },
    async save(state) {
      const [database] = await opened;
      const tx = database.transaction(STATES, "readwrite", { durability: "strict" });
      tx.objectStore(STATES).put(state, address);
      await completion(tx);
    },
    async close() {
      const [database, release] = await opened;
      database.close();
      release();
    },
  };
}

/** Resolves with the function that releases the lock, once it is held. */
function holdLock(name: string): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const held = navigator.locks.request(
      name,
      { signal: AbortSignal.timeout(LOCK_WAIT_MS) },
      () => {
        return new Promise<void>((release) => resolve(release));
      },
    );
    held.catch((error: unknown) => {
      reject(new ClientError("STORE_LOCKED", `${name} is open in another tab`, { cause: error }));
    });
  });
}
