import { type Database, inboxBlobs, inboxRegistrations } from "@svc/db";
import { and, asc, count, eq, gt, inArray, min, or, sql } from "drizzle-orm";
import { equalBytes } from "./bytes.js";
import { InboxError } from "./errors.js";
import {
  clampExpiry,
  nextReceivedAt,
  retryAfterSeconds,
  senderName,
  type TtlBounds,
} from "./policy.js";

export interface DepositInput {
  /** Normalized recipient address. */
  address: string;
  /** Lower-hex SHA-256 of `ciphertext` (checked by the caller). */
  msgId: string;
  ciphertext: Uint8Array;
  senderPublicKey: Uint8Array;
  /** Normalized sender address from the signed body, if any. */
  from?: string | undefined;
  /** Requested expiry, Unix epoch ms, before clamping. */
  expiresAt: number;
}

export type DepositResult =
  | { idempotent: true }
  | { idempotent: false; expiresAt: number; receivedAt: number };

export interface DepositPolicy extends TtlBounds {
  quota: number;
}

interface RecipientState {
  lastReceivedAt: number;
  queued: number;
  oldestExpiresAt: number;
  /** Sender key of each unexpired msgId seen so far (queued before, or earlier in the batch). */
  senderKeys: Map<string, Uint8Array>;
}

/**
 * A batch of deposits (recipients may repeat), in one transaction; answers each with its result
 * or the InboxError that refuses it, in input order. Locking the recipients' registration rows
 * (in address order, so batches cannot deadlock) serializes the deposits of one address across
 * every instance on the database: the idempotency check, the quota count and the receivedAt
 * sequence all see every earlier deposit, including those earlier in the same batch.
 */
export async function depositBlobs(
  db: Database,
  inputs: readonly DepositInput[],
  now: number,
  policy: DepositPolicy,
): Promise<Array<DepositResult | InboxError>> {
  const addresses = [...new Set(inputs.map((input) => input.address))].sort();
  return db.transaction(async (tx) => {
    // Sent together, run in order: the database starts each read (and takes its snapshot) only
    // after the locks are held, so the reads see every deposit committed before them.
    const [locked, queues, repeats] = await Promise.all([
      tx
        .select({ address: inboxRegistrations.address, last: inboxRegistrations.lastReceivedAt })
        .from(inboxRegistrations)
        .where(inArray(inboxRegistrations.address, addresses))
        .orderBy(asc(inboxRegistrations.address))
        .for("update"),
      tx
        .select({
          address: inboxBlobs.address,
          queued: count(),
          oldestExpiresAt: min(inboxBlobs.expiresAt),
        })
        .from(inboxBlobs)
        .where(and(inArray(inboxBlobs.address, addresses), gt(inboxBlobs.expiresAt, now)))
        .groupBy(inboxBlobs.address),
      tx
        .select({
          address: inboxBlobs.address,
          msgId: inboxBlobs.msgId,
          senderKey: inboxBlobs.senderKey,
        })
        .from(inboxBlobs)
        .where(
          and(
            or(
              ...inputs.map((i) =>
                and(eq(inboxBlobs.address, i.address), eq(inboxBlobs.msgId, i.msgId)),
              ),
            ),
            gt(inboxBlobs.expiresAt, now),
          ),
        ),
    ]);

    const recipients = new Map<string, RecipientState>();
    for (const row of locked) {
      recipients.set(row.address, {
        lastReceivedAt: row.last,
        queued: 0,
        oldestExpiresAt: Number.POSITIVE_INFINITY,
        senderKeys: new Map(),
      });
    }
    for (const row of queues) {
      const recipient = recipients.get(row.address);
      if (!recipient) continue;
      recipient.queued = row.queued;
      recipient.oldestExpiresAt = Number(row.oldestExpiresAt ?? now);
    }
    for (const row of repeats)
      recipients.get(row.address)?.senderKeys.set(row.msgId, row.senderKey);

    const stored: Array<typeof inboxBlobs.$inferInsert> = [];
    const results = inputs.map((input) => {
      const recipient = recipients.get(input.address);
      if (!recipient) return notRegistered();
      const outcome = admit(recipient, input, now, policy);
      if (!(outcome instanceof InboxError) && !outcome.idempotent) {
        stored.push({
          address: input.address,
          msgId: input.msgId,
          ciphertext: input.ciphertext,
          senderKey: input.senderPublicKey,
          sender: senderName(input.from, input.senderPublicKey),
          receivedAt: outcome.receivedAt,
          expiresAt: outcome.expiresAt,
        });
      }
      return outcome;
    });
    if (stored.length > 0) await storeAdmitted(tx, stored, recipients, now);
    return results;
  });
}

/** The checks of D6 that need the queue, in order: repeat (idempotent or 401), then quota. */
function admit(
  recipient: RecipientState,
  input: DepositInput,
  now: number,
  policy: DepositPolicy,
): DepositResult | InboxError {
  const repeatSenderKey = recipient.senderKeys.get(input.msgId);
  if (repeatSenderKey) {
    if (!equalBytes(repeatSenderKey, input.senderPublicKey)) {
      return new InboxError("SVC_WRONG_KEY", "this msgId is queued under another sender key");
    }
    return { idempotent: true };
  }
  if (recipient.queued >= policy.quota) {
    return new InboxError(
      "SVC_QUOTA_EXCEEDED",
      `the recipient's inbox holds ${policy.quota} blobs`,
      retryAfterSeconds(recipient.oldestExpiresAt, now),
    );
  }
  const receivedAt = nextReceivedAt(recipient.lastReceivedAt, now);
  const expiresAt = clampExpiry(input.expiresAt, now, policy);
  recipient.lastReceivedAt = receivedAt;
  recipient.queued++;
  recipient.oldestExpiresAt = Math.min(recipient.oldestExpiresAt, expiresAt);
  recipient.senderKeys.set(input.msgId, input.senderPublicKey);
  return { idempotent: false, expiresAt, receivedAt };
}

/**
 * Stores the admitted blobs and advances each recipient's receivedAt. An expired row of the same
 * msgId may still wait for the pruner: the new deposit replaces it.
 */
async function storeAdmitted(
  tx: Database,
  rows: Array<typeof inboxBlobs.$inferInsert>,
  recipients: Map<string, RecipientState>,
  now: number,
): Promise<void> {
  const advanced = [...new Set(rows.map((row) => row.address))];
  const last = advanced.map((address) => recipients.get(address)?.lastReceivedAt ?? 0);
  await Promise.all([
    tx
      .insert(inboxBlobs)
      .values(rows)
      .onConflictDoUpdate({
        target: [inboxBlobs.address, inboxBlobs.msgId],
        set: {
          ciphertext: sql`excluded.ciphertext`,
          senderKey: sql`excluded.sender_key`,
          sender: sql`excluded.sender`,
          receivedAt: sql`excluded.received_at`,
          expiresAt: sql`excluded.expires_at`,
        },
        setWhere: sql`${inboxBlobs.expiresAt} <= ${now}`,
      }),
    tx.execute(sql`
      update ${inboxRegistrations} set last_received_at = advanced.last
      from unnest(${sql.param(advanced)}::text[], ${sql.param(last)}::bigint[])
        as advanced(address, last)
      where ${inboxRegistrations.address} = advanced.address`),
  ]);
}

function notRegistered(): InboxError {
  return new InboxError("SVC_NOT_REGISTERED", "the recipient has no inbox registration");
}
