import { KtVerifyError } from "./errors.js";
import type { SthJson } from "./sth.js";

/** Where a {@link KtVerifier} keeps the last STH it trusts, across page loads or restarts. */
export interface TrustedSthStore {
  load(): Promise<SthJson | undefined>;
  save(sth: SthJson): Promise<void>;
}

/** Keeps the trusted STH in memory (lost when the process or page ends). */
export function memoryStore(initial?: SthJson): TrustedSthStore {
  let current = initial;
  return {
    async load() {
      return current;
    },
    async save(sth) {
      current = sth;
    },
  };
}

/** The parts of the Web Storage API the store uses. */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** Keeps the trusted STH as JSON under `key` of `localStorage` (or another Web Storage). */
export function localStorageStore(
  key: string,
  storage: KeyValueStorage | undefined = (globalThis as { localStorage?: KeyValueStorage })
    .localStorage,
): TrustedSthStore {
  if (typeof key !== "string" || key.length === 0) {
    throw new TypeError("key must be a non-empty string");
  }
  if (storage === undefined) throw new TypeError("no localStorage in this runtime");
  return {
    async load() {
      const text = storage.getItem(key);
      if (text === null) return undefined;
      try {
        return JSON.parse(text) as SthJson;
      } catch {
        throw new KtVerifyError("KT_MALFORMED", `stored STH under ${key} is not JSON`);
      }
    },
    async save(sth) {
      storage.setItem(key, JSON.stringify(sth));
    },
  };
}
