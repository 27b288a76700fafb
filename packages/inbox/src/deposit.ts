import { type Database, inboxBlobs, inboxRegistrations } from "@svc/db";
import { and, count, eq, gt, min, sql } from "drizzle-orm";
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

/**
 * One deposit, in one transaction. Locking the recipient's registration row serializes the
 * deposits of one address across every instance on the database, so the idempotency check, the
 * quota count and the receivedAt sequence all see every earlier deposit.
 */
export async function depositBlob(
  db: Database,
  input: DepositInput,
  now: number,
  policy: DepositPolicy,
): Promise<DepositResult> {
  return db.transaction(async (tx) => {
    const [registration] = await tx
      .select({ lastReceivedAt: inboxRegistrations.lastReceivedAt })
      .from(inboxRegistrations)
      .where(eq(inboxRegistrations.address, input.address))
      .for("update");
    if (!registration) {
      throw new InboxError("SVC_NOT_REGISTERED", "the recipient has no inbox registration");
    }

    const live = and(eq(inboxBlobs.address, input.address), gt(inboxBlobs.expiresAt, now));
    const [queue] = await tx
      .select({
        queued: count(),
        oldestExpiresAt: min(inboxBlobs.expiresAt),
        repeatSenderKey: sql<Uint8Array | null>`(select ${inboxBlobs.senderKey} from ${inboxBlobs}
          where ${inboxBlobs.address} = ${input.address} and ${inboxBlobs.msgId} = ${input.msgId}
          and ${inboxBlobs.expiresAt} > ${now})`,
      })
      .from(inboxBlobs)
      .where(live);
    if (queue?.repeatSenderKey) {
      if (!equalBytes(queue.repeatSenderKey, input.senderPublicKey)) {
        throw new InboxError("SVC_WRONG_KEY", "this msgId is queued under another sender key");
      }
      return { idempotent: true };
    }
    if (queue && queue.queued >= policy.quota) {
      const oldest = Number(queue.oldestExpiresAt ?? now);
      throw new InboxError(
        "SVC_QUOTA_EXCEEDED",
        `the recipient's inbox holds ${policy.quota} blobs`,
        retryAfterSeconds(oldest, now),
      );
    }

    const receivedAt = nextReceivedAt(registration.lastReceivedAt, now);
    const expiresAt = clampExpiry(input.expiresAt, now, policy);
    const blob = {
      ciphertext: input.ciphertext,
      senderKey: input.senderPublicKey,
      sender: senderName(input.from, input.senderPublicKey),
      receivedAt,
      expiresAt,
    };
    // One statement stores the blob and advances the recipient's receivedAt. An expired row of the
    // same msgId may still wait for the pruner: the new deposit replaces it.
    const stored = tx.$with("stored").as(
      tx
        .insert(inboxBlobs)
        .values({ address: input.address, msgId: input.msgId, ...blob })
        .onConflictDoUpdate({
          target: [inboxBlobs.address, inboxBlobs.msgId],
          set: blob,
          setWhere: sql`${inboxBlobs.expiresAt} <= ${now}`,
        })
        .returning({ receivedAt: inboxBlobs.receivedAt }),
    );
    await tx
      .with(stored)
      .update(inboxRegistrations)
      .set({ lastReceivedAt: sql`(select ${stored.receivedAt} from ${stored})` })
      .where(eq(inboxRegistrations.address, input.address));
    return { idempotent: false, expiresAt, receivedAt };
  });
}
