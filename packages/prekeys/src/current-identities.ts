import { type Database, plainBytes } from "@svc/db";
import { inArray, sql } from "drizzle-orm";
import { identities } from "./schema.js";

/**
 * What a key-transparency leaf commits to for an identity: its two keys and, when it has a
 * last-resort KEM key, that key's SHA-256.
 */
export interface LoggedIdentity {
  identitySigningKey: Uint8Array;
  identityDHKey: Uint8Array;
  kemKeyHash?: Uint8Array;
}

/**
 * The identities stored now for these addresses, read on `db` (a caller's transaction sees what
 * is committed as its statement starts); an address without one is absent from the map.
 */
export async function readCurrentIdentities(
  db: Database,
  addresses: readonly string[],
): Promise<Map<string, LoggedIdentity>> {
  const rows = await db
    .select({
      address: identities.address,
      signingKey: identities.signingKey,
      dhKey: identities.dhKey,
      // As the bundle pop reads it (bundle-pop.ts), so the two cannot disagree.
      kemKeyHash: sql<Uint8Array | null>`sha256(${identities.kemLastResortKey})`,
    })
    .from(identities)
    .where(inArray(identities.address, [...addresses]));
  return new Map(
    rows.map(({ address, signingKey, dhKey, kemKeyHash }) => [
      address,
      {
        identitySigningKey: plainBytes(signingKey),
        identityDHKey: plainBytes(dhKey),
        ...(kemKeyHash === null ? {} : { kemKeyHash: plainBytes(kemKeyHash) }),
      },
    ]),
  );
}
