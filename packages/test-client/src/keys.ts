import { encodeBase64, x25519PublicKeyFromSeed } from "@svc/canonical";
import type { KeysRegisterRequest, OneTimePreKeyJson } from "@svc/protocol";
import { signedBody } from "@svc/protocol";
import { type Signer, type SignerFromSeed, seedOf, seedSigner, signedBodyBy } from "./signer.js";

/** A request body as tests change it before (or after) signing. */
export type Json = Record<string, unknown>;

/** A keys-routes identity derived from a label, so that tests can rebuild the same one. */
export interface TestIdentity {
  address: string;
  seed: Uint8Array;
  signer: Signer;
  identitySigningKey: string;
  identityDHKey: string;
  signedPreKey: { keyId: number; publicKey: string; signature: string };
}

export function testIdentity(
  address: string,
  label = address,
  signerFromSeed: SignerFromSeed = seedSigner,
): TestIdentity {
  const signer = signerFromSeed(seedOf(`${label}/signing`));
  const spk = x25519PublicKeyFromSeed(seedOf(`${label}/spk`));
  return {
    address,
    seed: signer.seed,
    signer,
    identitySigningKey: encodeBase64(signer.publicKey),
    identityDHKey: encodeBase64(x25519PublicKeyFromSeed(seedOf(`${label}/dh`))),
    signedPreKey: {
      keyId: 1,
      publicKey: encodeBase64(spk),
      signature: encodeBase64(signer.sign(spk)),
    },
  };
}

/** One-time prekey entries; `label` picks the key material so a test can make conflicting ones. */
export function oneTimePreKeys(keyIds: number[], label = "otk"): OneTimePreKeyJson[] {
  return keyIds.map((keyId) => ({
    keyId,
    publicKey: encodeBase64(x25519PublicKeyFromSeed(seedOf(`${label}/${keyId}`))),
  }));
}

/**
 * `count` one-time prekeys with keyIds from `from` and random bytes for keys: the server never
 * uses them as points, and deriving thousands of real ones would dominate a load generator.
 */
export function randomOneTimePreKeys(from: number, count: number): OneTimePreKeyJson[] {
  return range(from, from + count).map((keyId) => ({
    keyId,
    publicKey: encodeBase64(crypto.getRandomValues(new Uint8Array(32))),
  }));
}

export const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from }, (_, i) => from + i);

/** Fields of a register body (unsigned), for tests that change them before signing. */
export function registerFields(
  identity: TestIdentity,
  signedAt: number,
  keyIds: number[] = [],
): Json {
  const fields: Omit<KeysRegisterRequest, "signature"> = {
    address: identity.address,
    identitySigningKey: identity.identitySigningKey,
    identityDHKey: identity.identityDHKey,
    signedPreKey: identity.signedPreKey,
    signedAt,
  };
  if (keyIds.length > 0) fields.oneTimePreKeys = oneTimePreKeys(keyIds);
  return fields;
}

/** `fields` signed with a raw seed, e.g. someone else's key. */
export function sign(method: string, path: string, fields: Json, seed: Uint8Array): Json {
  return signedBody(method, path, fields, seed);
}

export function registerBody(
  identity: TestIdentity,
  signedAt: number,
  keyIds: number[] = [],
): Json {
  const fields = registerFields(identity, signedAt, keyIds);
  return signedBodyBy(identity.signer, "POST", "/v1/keys/register", fields);
}

export function replenishBody(
  identity: TestIdentity,
  signedAt: number,
  entries: Json[] | OneTimePreKeyJson[],
): Json {
  const fields = { address: identity.address, oneTimePreKeys: entries, signedAt };
  return signedBodyBy(identity.signer, "POST", "/v1/keys/replenish", fields);
}

export function deleteBody(
  identity: TestIdentity,
  signedAt: number,
  path = deletePath(identity),
): Json {
  return signedBodyBy(identity.signer, "DELETE", path, { signedAt });
}

export const deletePath = (identity: TestIdentity): string => `/v1/keys/${identity.address}`;
