import { encodeBase64 } from "@svc/canonical";
import type * as v from "valibot";
import { SvcError } from "./errors.js";
import { decodeKey, parseRequest } from "./parse.js";
import {
  type KemPreKeyEntry,
  type OneTimePreKeyEntry,
  PreKeyBundle,
  type PreKeyBundleJson,
  type SignedPreKeyEntry,
} from "./schemas/keys.js";

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

/** FIPS 203 ML-KEM-1024 sizes, in bytes. */
export const ML_KEM_1024 = {
  publicKey: 1568,
  ciphertext: 1568,
  sharedSecret: 32,
} as const;

/** A signed ML-KEM-1024 prekey, one-time or last-resort. */
export interface KemPreKey {
  keyId: number;
  /** ML-KEM-1024 encapsulation key, 1568 bytes. */
  publicKey: Uint8Array;
  /** Ed25519 by the identity signing key over the 1568 bytes of `publicKey`. */
  signature: Uint8Array;
}

/** A KEM prekey as a bundle serves it. */
export interface ServedKemPreKey extends KemPreKey {
  /** True for the last-resort key (never removed), false for a one-time key (served once). */
  lastResort: boolean;
}

export interface IdentityKeys {
  /** Ed25519 public key, 32 bytes. */
  identitySigningKey: Uint8Array;
  /** X25519 public key, 32 bytes. */
  identityDHKey: Uint8Array;
}

export interface PreKeyBundleKeys extends IdentityKeys {
  signedPreKey: SignedPreKey;
  /** Absent when the queue was empty. */
  oneTimePreKey?: OneTimePreKey;
  /** Absent when the address has no last-resort KEM key (a classic, X3DH-only peer). */
  kemPreKey?: ServedKemPreKey;
}

/** The wire shape of a bundle: base64 keys, `oneTimePreKey` only when present. */
export function encodeBundle(bundle: PreKeyBundleKeys): PreKeyBundleJson {
  const json: PreKeyBundleJson = {
    identitySigningKey: encodeBase64(bundle.identitySigningKey),
    identityDHKey: encodeBase64(bundle.identityDHKey),
    signedPreKey: {
      keyId: bundle.signedPreKey.keyId,
      publicKey: encodeBase64(bundle.signedPreKey.publicKey),
      signature: encodeBase64(bundle.signedPreKey.signature),
    },
  };
  if (bundle.oneTimePreKey) {
    json.oneTimePreKey = {
      keyId: bundle.oneTimePreKey.keyId,
      publicKey: encodeBase64(bundle.oneTimePreKey.publicKey),
    };
  }
  if (bundle.kemPreKey) {
    json.kemPreKey = {
      keyId: bundle.kemPreKey.keyId,
      publicKey: encodeBase64(bundle.kemPreKey.publicKey),
      signature: encodeBase64(bundle.kemPreKey.signature),
      lastResort: bundle.kemPreKey.lastResort,
    };
  }
  return json;
}

/** A served bundle's keys, every length checked; its `ktProof` is kt-verify's to read. */
export function decodeBundle(json: unknown): PreKeyBundleKeys {
  const wire = parseRequest(PreKeyBundle, json);
  const bundle: PreKeyBundleKeys = {
    identitySigningKey: decodeKey(wire.identitySigningKey, 32, "identitySigningKey"),
    identityDHKey: decodeKey(wire.identityDHKey, 32, "identityDHKey"),
    signedPreKey: decodeSignedPreKey(wire.signedPreKey),
  };
  if (wire.oneTimePreKey) {
    bundle.oneTimePreKey = {
      keyId: wire.oneTimePreKey.keyId,
      publicKey: decodeKey(wire.oneTimePreKey.publicKey, 32, "oneTimePreKey.publicKey"),
    };
  }
  if (wire.kemPreKey) {
    bundle.kemPreKey = {
      ...decodeKemPreKey(wire.kemPreKey, "kemPreKey"),
      lastResort: wire.kemPreKey.lastResort,
    };
  }
  return bundle;
}

/**
 * A KEM prekey entry with its lengths checked (400 SVC_INVALID_KEM_PREKEY); whether its signature
 * verifies under the identity is the caller's to check.
 */
export function decodeKemPreKey(
  entry: v.InferOutput<typeof KemPreKeyEntry>,
  field: string,
): KemPreKey {
  return {
    keyId: entry.keyId,
    publicKey: decodeKemBytes(entry.publicKey, ML_KEM_1024.publicKey, `${field}.publicKey`),
    signature: decodeKemBytes(entry.signature, 64, `${field}.signature`),
  };
}

export function decodeKemPreKeys(
  entries: ReadonlyArray<v.InferOutput<typeof KemPreKeyEntry>> | undefined,
): KemPreKey[] {
  return (entries ?? []).map((entry, i) => decodeKemPreKey(entry, `kemPreKeys.${i}`));
}

function decodeKemBytes(value: string, length: number, field: string): Uint8Array {
  try {
    return decodeKey(value, length, field);
  } catch (error) {
    if (error instanceof SvcError) throw new SvcError("SVC_INVALID_KEM_PREKEY", error.message);
    throw error;
  }
}

export function decodeSignedPreKey(entry: v.InferOutput<typeof SignedPreKeyEntry>): SignedPreKey {
  return {
    keyId: entry.keyId,
    publicKey: decodeKey(entry.publicKey, 32, "signedPreKey.publicKey"),
    signature: decodeKey(entry.signature, 64, "signedPreKey.signature", "SVC_BAD_REQUEST"),
  };
}

export function decodeOneTimePreKeys(
  entries: ReadonlyArray<v.InferOutput<typeof OneTimePreKeyEntry>> | undefined,
): OneTimePreKey[] {
  return (entries ?? []).map((entry, i) => ({
    keyId: entry.keyId,
    publicKey: decodeKey(entry.publicKey, 32, `oneTimePreKeys.${i}.publicKey`),
  }));
}
