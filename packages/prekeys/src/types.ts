import type {
  IdentityKeys,
  KemPreKey,
  OneTimePreKey,
  PreKeyBundleKeys,
  SignedPreKey,
} from "@svc/protocol";

export type { KemPreKey, OneTimePreKey, SignedPreKey };

export interface Identity extends IdentityKeys {
  address: string;
  signedPreKey: SignedPreKey;
  /** Absent for a classic (X3DH-only) identity. */
  kemLastResortPreKey?: KemPreKey;
}

export interface PreKeyBundle extends Omit<Identity, "kemLastResortPreKey">, PreKeyBundleKeys {
  /** SHA-256 of the last-resort KEM key, whichever KEM prekey `kemPreKey` is. */
  kemKeyHash?: Uint8Array;
}

/** One-time prekeys of both kinds to append, and a last-resort KEM key to set or replace. */
export interface PreKeyUpload {
  /** Appended in this order (D5); may be empty. */
  oneTimePreKeys: OneTimePreKey[];
  /** Appended in this order; only to an identity that has (or gets) a last-resort KEM key. */
  kemPreKeys?: KemPreKey[];
  /** Absent: the stored one is kept. */
  kemLastResortPreKey?: KemPreKey;
}

export interface Registration extends Identity, PreKeyUpload {}

export interface UploadResult {
  /** Queue lengths afterwards. */
  remaining: number;
  kemRemaining: number;
  /** True when the last-resort KEM key of an identity that existed before was set or replaced. */
  kemKeyChanged: boolean;
}

export interface RegisterResult extends UploadResult {
  /** True when this register created the identity (a key-transparency leaf is due). */
  created: boolean;
}

export interface PrekeyCounts {
  count: number;
  kemCount: number;
}
