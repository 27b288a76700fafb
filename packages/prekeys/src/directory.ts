import { equalBytes } from "@svc/canonical";
import { type Database, plainBytes } from "@svc/db";
import { createBatcher } from "@svc/node-kit";
import { and, count, eq, sql } from "drizzle-orm";
import { popBundles } from "./bundle-pop.js";
import { PrekeyError } from "./errors.js";
import { requireSameIdentity } from "./identity-rules.js";
import { planAppend } from "./queue-rules.js";
import { identities, oneTimePrekeys } from "./schema.js";
import type {
  Identity,
  OneTimePreKey,
  PreKeyBundle,
  RegisterResult,
  Registration,
} from "./types.js";

/** The prekey directory of D5 on the `identities` and `one_time_prekeys` tables. */
export interface PrekeyDirectory {
  findIdentity(address: string): Promise<Identity | undefined>;
  /**
   * Creates the identity or, when it exists with the same identity keys, replaces its signed
   * prekey; then appends the one-time prekeys. One transaction under the identity's row lock.
   */
  registerIdentity(registration: Registration, now: number): Promise<RegisterResult>;
  /** Appends to the queue of an identity signed for by `identitySigningKey`; the new length. */
  appendOneTimePrekeys(
    address: string,
    identitySigningKey: Uint8Array,
    entries: OneTimePreKey[],
  ): Promise<number>;
  /** The bundle, consuming the oldest queued one-time prekey; undefined when not registered. */
  fetchBundle(address: string): Promise<PreKeyBundle | undefined>;
  /** Queue length; 0 for an unregistered address. */
  countPrekeys(address: string): Promise<number>;
  /** Removes identity, signed prekey and queue of an identity signed for by `identitySigningKey`. */
  deleteIdentity(address: string, identitySigningKey: Uint8Array): Promise<Identity>;
}

export interface PrekeyDirectoryOptions {
  /**
   * Most bundle statements in flight at once; fetches arriving while all are busy are served
   * together by the next one (see createBatcher). Keep it below the connection pool size.
   */
  fetchConcurrency?: number;
}

/**
 * Every statement of fixed text is prepared (`.prepare`), inside transactions too: unprepared,
 * each costs two exchanges with the database (parse and describe, then bind and execute), and on
 * the embedded database every exchange of a transaction holds its one session while other
 * requests wait. Only the insert of one-time prekeys, whose text varies with their number, is not.
 */
export function createPrekeyDirectory(
  db: Database,
  { fetchConcurrency = 2 }: PrekeyDirectoryOptions = {},
): PrekeyDirectory {
  const statements = prepareStatements(db);
  const fetchBundle = createBatcher((addresses: string[]) => popBundles(db, addresses), {
    concurrency: fetchConcurrency,
    maxBatch: 64,
  });

  return {
    async findIdentity(address) {
      const [row] = await statements.findIdentity.execute({ address });
      return row ? toIdentity(row) : undefined;
    },

    registerIdentity(registration, now) {
      const { address } = registration;
      return db.transaction(async (tx) => {
        let stored = await lockIdentity(tx, address);
        let created = false;
        if (!stored) {
          const inserted = await tx
            .insert(identities)
            .values({ ...identityColumns(registration), createdAt: now, updatedAt: now })
            .onConflictDoNothing()
            .returning({ address: identities.address })
            .prepare("prekeys_insert_identity")
            .execute();
          created = inserted.length === 1;
          // A concurrent first register committed in between: this one is a later register.
          if (!created) stored = await lockIdentity(tx, address);
        }
        if (stored) {
          requireSameIdentity(stored, registration);
          const { signedPreKey } = registration;
          await tx
            .update(identities)
            .set({
              signedPreKeyId: signedPreKey.keyId,
              signedPreKey: signedPreKey.publicKey,
              signedPreKeySignature: signedPreKey.signature,
              updatedAt: now,
            })
            .where(eq(identities.address, address))
            .prepare("prekeys_rotate_signed_prekey")
            .execute();
        }
        const remaining = await appendLocked(tx, address, registration.oneTimePreKeys);
        return { created, remaining };
      });
    },

    appendOneTimePrekeys(address, identitySigningKey, entries) {
      return db.transaction(async (tx) => {
        const stored = await lockIdentity(tx, address);
        if (!stored) throw notRegistered(address);
        requireSigningKey(stored, identitySigningKey);
        return appendLocked(tx, address, entries);
      });
    },

    fetchBundle,

    async countPrekeys(address) {
      const [row] = await statements.countPrekeys.execute({ address });
      return row?.count ?? 0;
    },

    async deleteIdentity(address, identitySigningKey) {
      const [row] = await db
        .delete(identities)
        .where(and(eq(identities.address, address), eq(identities.signingKey, identitySigningKey)))
        .returning()
        .prepare("prekeys_delete_identity")
        .execute();
      if (row) return toIdentity(row);
      const current = await this.findIdentity(address);
      if (!current) throw notRegistered(address);
      // Deleted and registered again with other keys since the caller's signature was checked.
      throw identityReplaced();
    },
  };
}

function prepareStatements(db: Database) {
  const address = sql.placeholder("address");
  return {
    findIdentity: db
      .select()
      .from(identities)
      .where(eq(identities.address, address))
      .prepare("prekeys_find_identity"),
    countPrekeys: db
      .select({ count: count() })
      .from(oneTimePrekeys)
      .where(eq(oneTimePrekeys.address, address))
      .prepare("prekeys_count"),
  };
}

const identityRowColumns = {
  address: identities.address,
  signingKey: identities.signingKey,
  dhKey: identities.dhKey,
  signedPreKeyId: identities.signedPreKeyId,
  signedPreKey: identities.signedPreKey,
  signedPreKeySignature: identities.signedPreKeySignature,
};

type IdentityRow = {
  [K in keyof typeof identityRowColumns]: (typeof identityRowColumns)[K]["_"]["data"];
};

async function lockIdentity(db: Database, address: string): Promise<Identity | undefined> {
  const [row] = await db
    .select(identityRowColumns)
    .from(identities)
    .where(eq(identities.address, address))
    .for("update")
    .prepare("prekeys_lock_identity")
    .execute();
  return row ? toIdentity(row) : undefined;
}

async function appendLocked(
  db: Database,
  address: string,
  entries: OneTimePreKey[],
): Promise<number> {
  const queued = await db
    .select({ keyId: oneTimePrekeys.keyId, publicKey: oneTimePrekeys.publicKey })
    .from(oneTimePrekeys)
    .where(eq(oneTimePrekeys.address, address))
    .prepare("prekeys_queued")
    .execute();
  const fresh = planAppend(queued, entries);
  // bigserial ids follow the VALUES order, which is the arrival order bundles consume.
  if (fresh.length > 0) {
    await db
      .insert(oneTimePrekeys)
      .values(fresh.map((entry) => ({ address, keyId: entry.keyId, publicKey: entry.publicKey })));
  }
  return queued.length + fresh.length;
}

function requireSigningKey(stored: Identity, identitySigningKey: Uint8Array): void {
  if (!equalBytes(stored.identitySigningKey, identitySigningKey)) throw identityReplaced();
}

function identityReplaced(): PrekeyError {
  return new PrekeyError("SVC_IDENTITY_MISMATCH", "the identity was replaced by another one");
}

function identityColumns(identity: Identity) {
  return {
    address: identity.address,
    signingKey: identity.identitySigningKey,
    dhKey: identity.identityDHKey,
    signedPreKeyId: identity.signedPreKey.keyId,
    signedPreKey: identity.signedPreKey.publicKey,
    signedPreKeySignature: identity.signedPreKey.signature,
  };
}

function toIdentity(row: IdentityRow): Identity {
  return {
    address: row.address,
    identitySigningKey: plainBytes(row.signingKey),
    identityDHKey: plainBytes(row.dhKey),
    signedPreKey: {
      keyId: row.signedPreKeyId,
      publicKey: plainBytes(row.signedPreKey),
      signature: plainBytes(row.signedPreKeySignature),
    },
  };
}

function notRegistered(address: string): PrekeyError {
  return new PrekeyError("SVC_NOT_REGISTERED", `${address} is not registered`);
}
