import { type Database, plainBytes, preparedRows } from "@svc/db";
import type { PushTarget } from "@svc/web-push";
import { and, count, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { PushStoreError } from "./errors.js";
import { pushSubscriptions } from "./schema.js";

/** First key of the advisory locks that serialize subscription changes per address. */
const SUBSCRIBE_LOCK_SPACE = 0x5356_5001;

/** A subscription as an address gives it, keys decoded. */
export interface NewSubscription {
  endpoint: string;
  p256dh: Uint8Array;
  auth: Uint8Array;
  /** The subscription's expirationTime, epoch ms; null when it has none. */
  expiresAt: number | null;
}

/** A stored subscription: where its wake-ups go, for whom. */
export interface StoredSubscription extends PushTarget {
  address: string;
  expiresAt: number | null;
  /** When its last wake-up was claimed; null: none since the address last fetched. */
  wokenAt: number | null;
}

export interface PushSubscriptions {
  /**
   * Adds the subscription, or renews it (new keys, same endpoint: not counted twice). Throws
   * PushStoreError SVC_TOO_MANY_SUBSCRIPTIONS when the address already has `max` others.
   */
  subscribe(
    address: string,
    subscription: NewSubscription,
    options: { now: number; max: number },
  ): Promise<"added" | "renewed">;
  /** Removes one subscription; false when the address had none with that endpoint. */
  unsubscribe(address: string, endpoint: string): Promise<boolean>;
  /** Removes every subscription of the address; how many went. */
  unsubscribeAll(address: string): Promise<number>;
  /** The subscriptions of these addresses (expired ones included). */
  ofAddresses(addresses: readonly string[]): Promise<StoredSubscription[]>;
  /**
   * Claims a wake-up for each unexpired subscription of these addresses not woken within the
   * last `coalesceMs` (or since the address's last fetch): sets its woken_at to `now` and
   * returns it; deletes those whose expirationTime has passed; counts the others (`coalesced`).
   * One statement, atomic across every instance on the database: one claim of a subscription
   * wins.
   */
  claim(addresses: readonly string[], now: number, coalesceMs: number): Promise<Claim>;
  /** The address fetched its inbox: its next deposit wakes it at once. */
  fetched(address: string): Promise<void>;
  /** Subscriptions stored, for every address. */
  count(): Promise<number>;
}

/** What a claim took, and how many unexpired subscriptions it left to an earlier wake-up. */
export interface Claim {
  claimed: StoredSubscription[];
  coalesced: number;
}

interface ClaimRow {
  address: string | null;
  endpoint: string | null;
  p256dh: Uint8Array;
  auth: Uint8Array;
  expires_at: number | string | null;
  woken_at: number | string | null;
  coalesced: number | string;
}

// Prepared, since each wake-up decision runs it. Every part reads the statement's one snapshot:
// the count is of the subscriptions before the claim, and the delete and the update touch
// disjoint rows.
const CLAIM = `with expired as (
    delete from push_subscriptions where address = any($1::text[]) and expires_at <= $2::bigint
  ), claimed as (
    update push_subscriptions set woken_at = $2::bigint
    where address = any($1::text[]) and (expires_at is null or expires_at > $2::bigint)
      and (woken_at is null or woken_at <= $3::bigint)
    returning address, endpoint, p256dh, auth, expires_at, woken_at
  )
  select claimed.*, counts.coalesced from (
    select (
      select count(*) from push_subscriptions
      where address = any($1::text[]) and (expires_at is null or expires_at > $2::bigint)
    ) - (select count(*) from claimed) as coalesced
  ) counts left join claimed on true`;

type Row = typeof pushSubscriptions.$inferSelect;

function stored(
  row: Pick<Row, "address" | "endpoint" | "p256dh" | "auth" | "expiresAt" | "wokenAt">,
): StoredSubscription {
  return {
    address: row.address,
    endpoint: row.endpoint,
    p256dh: plainBytes(row.p256dh),
    auth: plainBytes(row.auth),
    expiresAt: row.expiresAt === null ? null : Number(row.expiresAt),
    wokenAt: row.wokenAt === null ? null : Number(row.wokenAt),
  };
}

const STORED_COLUMNS = {
  address: pushSubscriptions.address,
  endpoint: pushSubscriptions.endpoint,
  p256dh: pushSubscriptions.p256dh,
  auth: pushSubscriptions.auth,
  expiresAt: pushSubscriptions.expiresAt,
  wokenAt: pushSubscriptions.wokenAt,
};

export function createPushSubscriptions(db: Database): PushSubscriptions {
  return {
    subscribe(address, subscription, { now, max }) {
      // The count and the insert under one lock per address: two subscribes at once cannot
      // both take the last place.
      return db.transaction(async (tx) => {
        await tx.execute(
          sql`select pg_advisory_xact_lock(${SUBSCRIBE_LOCK_SPACE}::int, hashtext(${address}))`,
        );
        const existing = await tx
          .select({ endpoint: pushSubscriptions.endpoint })
          .from(pushSubscriptions)
          .where(eq(pushSubscriptions.address, address));
        const renewing = existing.some((row) => row.endpoint === subscription.endpoint);
        if (!renewing && existing.length >= max) {
          throw new PushStoreError(
            "SVC_TOO_MANY_SUBSCRIPTIONS",
            `an address keeps at most ${max} push subscriptions`,
          );
        }
        const keys = {
          p256dh: subscription.p256dh,
          auth: subscription.auth,
          expiresAt: subscription.expiresAt,
          updatedAt: now,
          wokenAt: null,
        };
        await tx
          .insert(pushSubscriptions)
          .values({ address, endpoint: subscription.endpoint, createdAt: now, ...keys })
          .onConflictDoUpdate({
            target: [pushSubscriptions.address, pushSubscriptions.endpoint],
            set: keys,
          });
        return renewing ? "renewed" : "added";
      });
    },

    async unsubscribe(address, endpoint) {
      const removed = await db
        .delete(pushSubscriptions)
        .where(
          and(eq(pushSubscriptions.address, address), eq(pushSubscriptions.endpoint, endpoint)),
        )
        .returning({ endpoint: pushSubscriptions.endpoint });
      return removed.length > 0;
    },

    async unsubscribeAll(address) {
      const removed = await db
        .delete(pushSubscriptions)
        .where(eq(pushSubscriptions.address, address))
        .returning({ endpoint: pushSubscriptions.endpoint });
      return removed.length;
    },

    async ofAddresses(addresses) {
      if (addresses.length === 0) return [];
      const rows = await db
        .select(STORED_COLUMNS)
        .from(pushSubscriptions)
        .where(inArray(pushSubscriptions.address, [...addresses]));
      return rows.map(stored);
    },

    async claim(addresses, now, coalesceMs) {
      if (addresses.length === 0) return { claimed: [], coalesced: 0 };
      const rows = await preparedRows<ClaimRow>(db, CLAIM, [[...addresses], now, now - coalesceMs]);
      const claimed = rows.flatMap((row) =>
        row.address === null || row.endpoint === null
          ? []
          : [
              stored({
                ...row,
                address: row.address,
                endpoint: row.endpoint,
                expiresAt: row.expires_at === null ? null : Number(row.expires_at),
                wokenAt: row.woken_at === null ? null : Number(row.woken_at),
              }),
            ],
      );
      return { claimed, coalesced: Number(rows[0]?.coalesced ?? 0) };
    },

    async fetched(address) {
      await db
        .update(pushSubscriptions)
        .set({ wokenAt: null })
        .where(and(eq(pushSubscriptions.address, address), isNotNull(pushSubscriptions.wokenAt)));
    },

    async count() {
      const [row] = await db.select({ n: count() }).from(pushSubscriptions);
      return row?.n ?? 0;
    },
  };
}
