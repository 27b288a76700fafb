import { encodeBase64 } from "@svc/canonical";
import type * as v from "valibot";
import { decodeKey, parseRequest } from "./parse.js";
import {
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
  return bundle;
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
