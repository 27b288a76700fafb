import { equalBytes } from "@svc/canonical";
import { type Database, executePreparedRows, plainBytes, preparedRows } from "@svc/db";
import { createBatcher } from "@svc/node-kit";
import { and, eq, type SQL, sql } from "drizzle-orm";
import { popBundles } from "./bundle-pop.js";
import { PrekeyError } from "./errors.js";
import { requireSameIdentity } from "./identity-rules.js";
import { KEM_QUEUE, planAppend } from "./queue-rules.js";
import { identities, oneTimeKemPrekeys, oneTimePrekeys } from "./schema.js";
import type {
  Identity,
  KemPreKey,
  PreKeyBundle,
  PreKeyUpload,
  PrekeyCounts,
  RegisterResult,
  Registration,
  UploadResult,
} from "./types.js";

/**
 * The prekey directory of D5 on the `identities`, `one_time_prekeys` and `one_time_kem_prekeys`
 * tables.
 */
export interface PrekeyDirectory {
  findIdentity(address: string): Promise<Identity | undefined>;
  /**
   * Creates the identity or, when it exists with the same identity keys, replaces its signed
   * prekey (and its last-resort KEM key when the registration has one); then appends the one-time
   * prekeys. One transaction under the identity's row lock.
   */
  registerIdentity(registration: Registration, now: number): Promise<RegisterResult>;
  /**
   * Appends to the queues of an identity signed for by `identitySigningKey`, and sets or replaces
   * its last-resort KEM key; one transaction under the identity's row lock.
   */
  replenish(
    address: string,
    identitySigningKey: Uint8Array,
    upload: PreKeyUpload,
    now: number,
  ): Promise<UploadResult>;
  /**
   * The bundle, consuming the oldest queued one-time prekey of each kind (a KEM one only for an
   * identity with a last-resort KEM key, which is served once none is left); undefined when not
   * registered.
   */
  fetchBundle(address: string): Promise<PreKeyBundle | undefined>;
  /** Queue lengths, the last-resort KEM key not counted; 0 for an unregistered address. */
  countPrekeys(address: string): Promise<PrekeyCounts>;
  /** One-time KEM prekeys queued over all addresses. */
  countAllKemPrekeys(): Promise<number>;
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
 * requests wait. Only the inserts of one-time prekeys, whose text varies with their number, are
 * not.
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
            .values({
              ...identityColumns(registration),
              ...kemLastResortColumns(registration.kemLastResortPreKey),
              createdAt: now,
              updatedAt: now,
            })
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
        const uploaded = await uploadLocked(tx, stored, registration, now);
        return { created, ...uploaded };
      });
    },

    replenish(address, identitySigningKey, upload, now) {
      return db.transaction(async (tx) => {
        const stored = await lockIdentity(tx, address);
        if (!stored) throw notRegistered(address);
        requireSigningKey(stored, identitySigningKey);
        return uploadLocked(tx, stored, { address, ...upload }, now);
      });
    },

    fetchBundle,

    async countPrekeys(address) {
      const [row] = await preparedRows<{ count: number; kem_count: number }>(db, COUNT, [address]);
      return { count: row?.count ?? 0, kemCount: row?.kem_count ?? 0 };
    },

    async countAllKemPrekeys() {
      const [row] = await preparedRows<{ n: number }>(db, COUNT_ALL_KEM, []);
      return row?.n ?? 0;
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
  };
}

const COUNT = `
  select
    (select count(*) from one_time_prekeys where address = $1)::int as count,
    (select count(*) from one_time_kem_prekeys where address = $1)::int as kem_count`;

const COUNT_ALL_KEM = "select count(*)::int as n from one_time_kem_prekeys";

const identityRowColumns = {
  address: identities.address,
  signingKey: identities.signingKey,
  dhKey: identities.dhKey,
  signedPreKeyId: identities.signedPreKeyId,
  signedPreKey: identities.signedPreKey,
  signedPreKeySignature: identities.signedPreKeySignature,
  kemLastResortKeyId: identities.kemLastResortKeyId,
  kemLastResortKey: identities.kemLastResortKey,
  kemLastResortSignature: identities.kemLastResortSignature,
};

type IdentityRow = Pick<typeof identities.$inferSelect, keyof typeof identityRowColumns>;

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

/**
 * Sets the last-resort KEM key of the locked identity (`stored`; undefined when this transaction
 * created it) when `upload` has one, then appends to both queues. One-time KEM prekeys need a
 * last-resort key: the bundle serves one only beside it.
 */
async function uploadLocked(
  db: Database,
  stored: Identity | undefined,
  upload: PreKeyUpload & { address: string },
  now: number,
): Promise<UploadResult> {
  const { address, kemLastResortPreKey } = upload;
  const kemPreKeys = upload.kemPreKeys ?? [];
  const kemKeyChanged =
    stored !== undefined &&
    kemLastResortPreKey !== undefined &&
    !equalBytes(
      stored.kemLastResortPreKey?.publicKey ?? new Uint8Array(),
      kemLastResortPreKey.publicKey,
    );
  if (stored && kemLastResortPreKey) {
    await db
      .update(identities)
      .set({ ...kemLastResortColumns(kemLastResortPreKey), updatedAt: now })
      .where(eq(identities.address, address))
      .prepare("prekeys_set_kem_last_resort")
      .execute();
  }
  if (kemPreKeys.length > 0 && !(kemLastResortPreKey ?? stored?.kemLastResortPreKey)) {
    throw new PrekeyError(
      "SVC_BAD_REQUEST",
      "one-time KEM prekeys need a last-resort KEM key: send kemLastResortPreKey with them",
    );
  }
  const queued = await db
    .select({ keyId: oneTimePrekeys.keyId, publicKey: oneTimePrekeys.publicKey })
    .from(oneTimePrekeys)
    .where(eq(oneTimePrekeys.address, address))
    .prepare("prekeys_queued")
    .execute();
  const fresh = planAppend(queued, upload.oneTimePreKeys);
  const kemQueued = await db
    .select({ keyId: oneTimeKemPrekeys.keyId, publicKey: oneTimeKemPrekeys.publicKey })
    .from(oneTimeKemPrekeys)
    .where(eq(oneTimeKemPrekeys.address, address))
    .prepare("prekeys_kem_queued")
    .execute();
  const kemFresh = planAppend(kemQueued, kemPreKeys, KEM_QUEUE);
  if (fresh.length > 0) await executePreparedRows(db, appendOneTime(address, fresh));
  if (kemFresh.length > 0) await executePreparedRows(db, appendOneTimeKem(address, kemFresh));
  return {
    remaining: queued.length + fresh.length,
    kemRemaining: kemQueued.length + kemFresh.length,
    kemKeyChanged,
  };
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

function kemLastResortColumns(kemPreKey: KemPreKey | undefined) {
  if (!kemPreKey) return {};
  return {
    kemLastResortKeyId: kemPreKey.keyId,
    kemLastResortKey: kemPreKey.publicKey,
    kemLastResortSignature: kemPreKey.signature,
  };
}

function toIdentity(row: IdentityRow): Identity {
  const identity: Identity = {
    address: row.address,
    identitySigningKey: plainBytes(row.signingKey),
    identityDHKey: plainBytes(row.dhKey),
    signedPreKey: {
      keyId: row.signedPreKeyId,
      publicKey: plainBytes(row.signedPreKey),
      signature: plainBytes(row.signedPreKeySignature),
    },
  };
  if (
    row.kemLastResortKeyId !== null &&
    row.kemLastResortKey !== null &&
    row.kemLastResortSignature !== null
  ) {
    identity.kemLastResortPreKey = {
      keyId: row.kemLastResortKeyId,
      publicKey: plainBytes(row.kemLastResortKey),
      signature: plainBytes(row.kemLastResortSignature),
    };
  }
  return identity;
}

function notRegistered(address: string): PrekeyError {
  return new PrekeyError("SVC_NOT_REGISTERED", `${address} is not registered`);
}

// Appends are one prepared statement whatever the number of keys: drizzle's insert builder spent
// some 3.5 ms of CPU on the VALUES list of 100 keys. Each key's bytes are a slice of one bytea
// parameter (not every driver sends bytea[] ones), and the bigserial ids follow the ordinality,
// the arrival order bundles consume.

function appendOneTime(
  address: string,
  keys: ReadonlyArray<{ keyId: number; publicKey: Uint8Array }>,
): SQL {
  const keyBytes = slices(keys.map((key) => key.publicKey));
  return sql`insert into one_time_prekeys (address, key_id, public_key)
    select ${address}::text, key_id, substring(${keyBytes.bytes}::bytea from start for length)
    from unnest(${sql.param(keys.map((key) => key.keyId))}::bigint[],
      ${sql.param(keyBytes.starts)}::integer[], ${sql.param(keyBytes.lengths)}::integer[])
      with ordinality as key(key_id, start, length, n)
    order by n`;
}

function appendOneTimeKem(address: string, keys: readonly KemPreKey[]): SQL {
  const keyBytes = slices(keys.map((key) => key.publicKey));
  const signatures = slices(keys.map((key) => key.signature));
  return sql`insert into one_time_kem_prekeys (address, key_id, public_key, signature)
    select ${address}::text, key_id, substring(${keyBytes.bytes}::bytea from key_start for key_length),
      substring(${signatures.bytes}::bytea from signature_start for signature_length)
    from unnest(${sql.param(keys.map((key) => key.keyId))}::bigint[],
      ${sql.param(keyBytes.starts)}::integer[], ${sql.param(keyBytes.lengths)}::integer[],
      ${sql.param(signatures.starts)}::integer[], ${sql.param(signatures.lengths)}::integer[])
      with ordinality as key(key_id, key_start, key_length, signature_start, signature_length, n)
    order by n`;
}

/** `parts` as one byte string and where each starts in it (1-based, as substring counts). */
function slices(parts: readonly Uint8Array[]) {
  const starts: number[] = [];
  let offset = 1;
  for (const part of parts) {
    starts.push(offset);
    offset += part.length;
  }
  return {
    bytes: sql.param(Buffer.concat(parts)),
    starts,
    lengths: parts.map((part) => part.length),
  };
}
