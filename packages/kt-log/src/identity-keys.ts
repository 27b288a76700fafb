import { equalBytes } from "@svc/canonical";
import type { Database } from "@svc/db";

/**
 * The identity keys an answer shows for an address, with its last-resort KEM key's SHA-256 when
 * it has one; undefined when it is not registered.
 */
export interface IdentityKeys {
  identitySigningKey: Uint8Array;
  identityDHKey: Uint8Array;
  kemKeyHash?: Uint8Array | undefined;
}

/**
 * The identities the directory holds now for these addresses, read on `db` (the append's own
 * transaction); an address it does not hold has none (deleted, or never registered).
 */
export type CurrentIdentities = (
  db: Database,
  addresses: readonly string[],
) => Promise<ReadonlyMap<string, IdentityKeys>>;

/** Whether two identities (undefined: none) have the same keys and last-resort KEM key hash. */
export function sameIdentity(a: IdentityKeys | undefined, b: IdentityKeys | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    equalBytes(a.identitySigningKey, b.identitySigningKey) &&
    equalBytes(a.identityDHKey, b.identityDHKey) &&
    sameKemKeyHash(a.kemKeyHash, b.kemKeyHash)
  );
}

export function sameKemKeyHash(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return a === undefined || b === undefined ? a === b : equalBytes(a, b);
}
