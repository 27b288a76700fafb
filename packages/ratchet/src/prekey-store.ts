import { assertKey, assertKeyId } from "./assert.js";

type Awaitable<T> = T | Promise<T>;

/** Where a responder keeps the private keys of the prekeys it has registered. */
export interface PreKeyStore {
  /** The X25519 private key of signed prekey `keyId`, or undefined if unknown (rotated out). */
  signedPreKey(keyId: number): Awaitable<Uint8Array | undefined>;
  /** The X25519 private key of one-time prekey `keyId`, or undefined if unknown or used. */
  oneTimePreKey(keyId: number): Awaitable<Uint8Array | undefined>;
  /**
   * Deletes one-time prekey `keyId`; true when this call deleted it. A store shared by
   * concurrent callers must make this a compare-and-delete, so exactly one of them gets true.
   */
  removeOneTimePreKey(keyId: number): Awaitable<boolean>;
}

/** A PreKeyStore in memory (tests, or a client that persists the keys itself). */
export class MemoryPreKeyStore implements PreKeyStore {
  readonly #signed = new Map<number, Uint8Array>();
  readonly #oneTime = new Map<number, Uint8Array>();

  addSignedPreKey(key: { keyId: number; privateKey: Uint8Array }): void {
    assertKeyId("key.keyId", key.keyId);
    assertKey("key.privateKey", key.privateKey);
    this.#signed.set(key.keyId, key.privateKey);
  }

  addOneTimePreKey(key: { keyId: number; privateKey: Uint8Array }): void {
    assertKeyId("key.keyId", key.keyId);
    assertKey("key.privateKey", key.privateKey);
    this.#oneTime.set(key.keyId, key.privateKey);
  }

  signedPreKey(keyId: number): Uint8Array | undefined {
    return this.#signed.get(keyId);
  }

  oneTimePreKey(keyId: number): Uint8Array | undefined {
    return this.#oneTime.get(keyId);
  }

  removeOneTimePreKey(keyId: number): boolean {
    return this.#oneTime.delete(keyId);
  }

  get oneTimePreKeyCount(): number {
    return this.#oneTime.size;
  }
}
