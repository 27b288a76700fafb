import { assertBytes } from "@svc/canonical";
import { assertKey, assertKeyId } from "./assert.js";
import { KEM_SEED_SIZE } from "./kem.js";

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
  /**
   * The 64-byte ML-KEM seed of KEM prekey `keyId`, one-time or last-resort as `lastResort` says,
   * or undefined if unknown (or used). A store without it cannot answer PQXDH first messages.
   */
  kemPreKey?(keyId: number, lastResort: boolean): Awaitable<Uint8Array | undefined>;
  /**
   * Deletes one-time KEM prekey `keyId` (never a last-resort one); true when this call deleted
   * it, a compare-and-delete like {@link removeOneTimePreKey}.
   */
  removeKemPreKey?(keyId: number): Awaitable<boolean>;
}

/** A PreKeyStore in memory (tests, or a client that persists the keys itself). */
export class MemoryPreKeyStore implements PreKeyStore {
  readonly #signed = new Map<number, Uint8Array>();
  readonly #oneTime = new Map<number, Uint8Array>();
  readonly #kemOneTime = new Map<number, Uint8Array>();
  readonly #kemLastResort = new Map<number, Uint8Array>();

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

  addKemPreKey(key: { keyId: number; seed: Uint8Array; lastResort: boolean }): void {
    assertKeyId("key.keyId", key.keyId);
    assertBytes("key.seed", key.seed);
    if (key.seed.length !== KEM_SEED_SIZE) {
      throw new RangeError(`key.seed must be ${KEM_SEED_SIZE} bytes, got ${key.seed.length}`);
    }
    if (typeof key.lastResort !== "boolean")
      throw new TypeError("key.lastResort must be a boolean");
    (key.lastResort ? this.#kemLastResort : this.#kemOneTime).set(key.keyId, key.seed);
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

  kemPreKey(keyId: number, lastResort: boolean): Uint8Array | undefined {
    return (lastResort ? this.#kemLastResort : this.#kemOneTime).get(keyId);
  }

  removeKemPreKey(keyId: number): boolean {
    return this.#kemOneTime.delete(keyId);
  }

  get oneTimePreKeyCount(): number {
    return this.#oneTime.size;
  }

  /** One-time KEM prekeys left (the last-resort ones not counted). */
  get kemPreKeyCount(): number {
    return this.#kemOneTime.size;
  }
}
