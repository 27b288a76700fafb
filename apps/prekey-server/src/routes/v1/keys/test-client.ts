import { createHash } from "node:crypto";
import {
  ed25519KeyPairFromSeed,
  ed25519Sign,
  encodeBase64,
  signedBody,
  x25519PublicKeyFromSeed,
} from "@svc/canonical";
import { migrations } from "../../../migrations.js";

/** Test-side client of the keys routes: deterministic identities and signed request bodies. */
export interface TestIdentity {
  address: string;
  seed: Uint8Array;
  identitySigningKey: string;
  identityDHKey: string;
  signedPreKey: { keyId: number; publicKey: string; signature: string };
}

export type Json = Record<string, unknown>;

export function seedOf(label: string): Uint8Array {
  return new Uint8Array(createHash("sha256").update(label).digest());
}

export function testIdentity(address: string, label = address): TestIdentity {
  const seed = seedOf(`${label}/signing`);
  const spk = x25519PublicKeyFromSeed(seedOf(`${label}/spk`));
  return {
    address,
    seed,
    identitySigningKey: encodeBase64(ed25519KeyPairFromSeed(seed).publicKey),
    identityDHKey: encodeBase64(x25519PublicKeyFromSeed(seedOf(`${label}/dh`))),
    signedPreKey: {
      keyId: 1,
      publicKey: encodeBase64(spk),
      signature: encodeBase64(ed25519Sign(spk, seed)),
    },
  };
}

/** One-time prekey entries; `label` picks the key material so a test can make conflicting ones. */
export function oneTimePreKeys(keyIds: number[], label = "otk"): Json[] {
  return keyIds.map((keyId) => ({
    keyId,
    publicKey: encodeBase64(x25519PublicKeyFromSeed(seedOf(`${label}/${keyId}`))),
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
  const fields: Json = {
    address: identity.address,
    identitySigningKey: identity.identitySigningKey,
    identityDHKey: identity.identityDHKey,
    signedPreKey: identity.signedPreKey,
    signedAt,
  };
  if (keyIds.length > 0) fields.oneTimePreKeys = oneTimePreKeys(keyIds);
  return fields;
}

export function sign(method: string, path: string, fields: Json, seed: Uint8Array): Json {
  return signedBody(method, path, fields, seed);
}

export function registerBody(
  identity: TestIdentity,
  signedAt: number,
  keyIds: number[] = [],
): Json {
  return sign(
    "POST",
    "/v1/keys/register",
    registerFields(identity, signedAt, keyIds),
    identity.seed,
  );
}

export function replenishBody(identity: TestIdentity, signedAt: number, entries: Json[]): Json {
  return sign(
    "POST",
    "/v1/keys/replenish",
    { address: identity.address, oneTimePreKeys: entries, signedAt },
    identity.seed,
  );
}

export function deleteBody(
  identity: TestIdentity,
  signedAt: number,
  path = deletePath(identity),
): Json {
  return sign("DELETE", path, { signedAt }, identity.seed);
}

export const deletePath = (identity: TestIdentity): string => `/v1/keys/${identity.address}`;

export function jsonRequest(method: string, body: unknown): RequestInit {
  return {
    method,
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
}

/**
 * The first test database of a worker is migrated from scratch, which can take longer than a
 * test's timeout on a busy machine; tests files call this in `beforeAll` (hook timeout) instead.
 */
export async function warmTestDatabase(
  createTestStorage: (options: { migrations: typeof migrations }) => Promise<{
    close(): Promise<void>;
  }>,
): Promise<void> {
  await (await createTestStorage({ migrations })).close();
}
