import type { IdentityKeys, OneTimePreKey, PreKeyBundleKeys, SignedPreKey } from "@svc/protocol";

export type { OneTimePreKey, SignedPreKey };

export interface Identity extends IdentityKeys {
  address: string;
  signedPreKey: SignedPreKey;
}

export interface PreKeyBundle extends Identity, PreKeyBundleKeys {}

export interface Registration extends Identity {
  /** Appended in this order (D5); may be empty. */
  oneTimePreKeys: OneTimePreKey[];
}

export interface RegisterResult {
  /** True when this register created the identity (a key-transparency leaf is due). */
  created: boolean;
  /** Queue length afterwards. */
  remaining: number;
}
