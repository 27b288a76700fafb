/** Keys are raw bytes here; base64 is the wire's business. */
export interface SignedPreKey {
  keyId: number;
  /** X25519 public key, 32 bytes. */
  publicKey: Uint8Array;
  /** Ed25519 by the identity signing key over the 32 bytes of `publicKey`. */
  signature: Uint8Array;
}

export interface OneTimePreKey {
  keyId: number;
  /** X25519 public key, 32 bytes. */
  publicKey: Uint8Array;
}

export interface Identity {
  address: string;
  /** Ed25519 public key, 32 bytes. */
  identitySigningKey: Uint8Array;
  /** X25519 public key, 32 bytes. */
  identityDHKey: Uint8Array;
  signedPreKey: SignedPreKey;
}

export interface PreKeyBundle extends Identity {
  /** Absent when the queue was empty. */
  oneTimePreKey?: OneTimePreKey;
}

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
