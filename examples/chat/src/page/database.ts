/** The page's one IndexedDB database: the client states, and the history the page keeps. */
export const DATABASE = "svc-chat";
/** StoredState per address (key: the address). */
export const STATES = "states";
/** History entries (key: [owner, id]; index CONVERSATION on [owner, conversation]). */
export const MESSAGES = "messages";
/** Conversations (key: [owner, id]; index OWNER on owner). */
export const CONVERSATIONS = "conversations";
export const CONVERSATION_INDEX = "by-conversation";
export const OWNER_INDEX = "by-owner";

/** Version 1 had the states only; version 2 adds the history (its stores start empty). */
export function openDatabase(): Promise<IDBDatabase> {
  const open = indexedDB.open(DATABASE, 2);
  open.onupgradeneeded = () => {
    const database = open.result;
    const existing = database.objectStoreNames;
    if (!existing.contains(STATES)) database.createObjectStore(STATES);
    if (!existing.contains(MESSAGES)) {
      database
        .createObjectStore(MESSAGES, { keyPath: ["owner", "id"] })
        .createIndex(CONVERSATION_INDEX, ["owner", "conversation"]);
    }
    if (!existing.contains(CONVERSATIONS)) {
      database
        .createObjectStore(CONVERSATIONS, { keyPath: ["owner", "id"] })
        .createIndex(OWNER_INDEX, "owner");
    }
  };
  return requestResult(open);
}

export function requestResult<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

export function completion(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new DOMException("transaction aborted", "AbortError"));
  });
}
