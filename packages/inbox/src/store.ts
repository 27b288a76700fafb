import { equalBytes } from "@svc/canonical";
import { type Database, preparedRows } from "@svc/db";
import { createBatcher } from "@svc/node-kit";
import { type BridgeEnvelope, type FetchPage, LIMITS } from "@svc/protocol";
import { and, eq, sql } from "drizzle-orm";
import { toBase64 } from "./bytes.js";
import { CursorCodec } from "./cursor.js";
import {
  type DepositInput,
  type DepositNotice,
  type DepositResult,
  type DepositWakeCheck,
  depositBlobs,
  depositWithWakeCheck,
  type StoredDeposit,
} from "./deposit.js";
import { InboxError } from "./errors.js";
import { senderName } from "./policy.js";
import { inboxBlobs, inboxRegistrations, serverSecrets } from "./schema.js";
import { sharedSecret } from "./server-secret.js";

export interface InboxStoreOptions {
  db: Database;
  now: () => number;
  /** Most unexpired blobs queued per recipient. */
  quota: number;
  minTtlMs: number;
  maxTtlMs: number;
  /**
   * Most deposit transactions in flight at once (default 2); deposits arriving while all are
   * busy share the next one (see createBatcher). Keep it below the connection pool size.
   */
  depositConcurrency?: number;
  /**
   * PostgreSQL only: each deposit transaction also sends this NOTIFY (see DepositNotice), so that
   * listeners on other connections hear of deposits without a statement of their own.
   */
  depositNotice?: DepositNotice;
  /**
   * The deposit statement also asks this check for each blob it stores (see DepositWakeCheck);
   * deposit listeners hear its answer as CommittedDeposit.wakeUpDue.
   */
  depositWakeCheck?: DepositWakeCheck;
  /** Told when a deposit listener throws (the deposit itself has committed). */
  onListenerError?: (error: unknown) => void;
}

/** A stored blob, as deposit listeners hear of it once its transaction has committed. */
export interface CommittedDeposit {
  address: string;
  receivedAt: number;
  /** The address's receivedAt before this blob; none of its blobs lies between the two. */
  previousReceivedAt: number;
  /** The deposit's transaction sent the store's DepositNotice: no announcement is due. */
  notified: boolean;
  /** The store's DepositWakeCheck's answer for this blob (null too); undefined without one. */
  wakeUpDue?: boolean | null;
  /** The blob as `envelopesSince` would serve it (built on first call); undefined once expired. */
  envelope(): BridgeEnvelope | undefined;
}

export type DepositListener = (deposit: CommittedDeposit) => void;

export const MAX_FETCH_LIMIT = LIMITS.fetchLimit.max;
export const MAX_BACKLOG_LIMIT = 1000;
export const PRUNE_BATCH = 500;
const CURSOR_SECRET = "inbox-cursor";
// Functions of migration 0005: each locks the registration row before it touches the blobs.
const ACK = "select svc_inbox_ack($1::text, $2::text, $3::bigint) as acked";
const PRUNE = "select svc_inbox_prune($1::bigint, $2::integer) as pruned";
// Prepared on PostgreSQL: fetches and every bridge wake-up run it.
const UNEXPIRED_AFTER = `select msg_id, ciphertext, sender, received_at, expires_at
  from inbox_blobs
  where address = $1::text and received_at > $2::bigint and expires_at > $3::bigint
  order by received_at
  limit $4::integer`;

const PENDING = `select address, count(*) as pending from inbox_blobs
  where address = any($1::text[]) and expires_at > $2::bigint
  group by address`;

interface QueuedRow {
  msg_id: string;
  ciphertext: Uint8Array;
  sender: string;
  received_at: number | string | bigint;
  expires_at: number | string | bigint;
}

/** The inbox relay's state: registrations and queued blobs, on the shared database. */
export class InboxStore {
  readonly #options: InboxStoreOptions;
  readonly #db: Database;
  readonly #listeners = new Set<DepositListener>();
  readonly #deposit: (input: DepositInput) => Promise<DepositResult | InboxError>;
  #cursors: Promise<CursorCodec> | undefined;

  constructor(options: InboxStoreOptions) {
    for (const name of ["quota", "minTtlMs", "maxTtlMs"] as const) {
      if (!Number.isSafeInteger(options[name]) || options[name] < 0) {
        throw new RangeError(`${name} must be a non-negative integer`);
      }
    }
    if (options.minTtlMs > options.maxTtlMs) throw new RangeError("minTtlMs exceeds maxTtlMs");
    this.#options = options;
    this.#db = options.db;
    const { quota, minTtlMs, maxTtlMs, depositWakeCheck } = options;
    const wakeCheck =
      depositWakeCheck === undefined
        ? undefined
        : {
            statement: depositWithWakeCheck(depositWakeCheck),
            argument: depositWakeCheck.argument,
          };
    this.#deposit = createBatcher(
      (inputs: DepositInput[]) =>
        depositBlobs(
          this.#db,
          inputs,
          options.now(),
          { quota, minTtlMs, maxTtlMs },
          options.depositNotice,
          wakeCheck,
        ),
      { concurrency: options.depositConcurrency ?? 2, maxBatch: 32 },
    );
  }

  /** Binds `address` to `signingKey` on first use; the same key again is fine, another is not. */
  async register(address: string, signingKey: Uint8Array): Promise<void> {
    const inserted = await this.#db
      .insert(inboxRegistrations)
      .values({ address, signingKey, createdAt: this.#options.now() })
      .onConflictDoNothing({ target: inboxRegistrations.address })
      .returning({ address: inboxRegistrations.address });
    if (inserted.length > 0) return;
    const bound = await this.bindingKey(address);
    if (bound === undefined) return this.register(address, signingKey); // unregistered meanwhile
    if (!equalBytes(bound, signingKey)) {
      throw new InboxError("SVC_WRONG_KEY", "the address is bound to another signing key");
    }
  }

  /** Drops the registration (and, by cascade, its queued blobs) if still bound to `boundKey`. */
  async unregister(address: string, boundKey: Uint8Array): Promise<boolean> {
    const removed = await this.#db
      .delete(inboxRegistrations)
      .where(
        and(eq(inboxRegistrations.address, address), eq(inboxRegistrations.signingKey, boundKey)),
      )
      .returning({ address: inboxRegistrations.address });
    return removed.length > 0;
  }

  /** The signing key `address` is bound to; bridges verify signed queries against it. */
  async bindingKey(address: string): Promise<Uint8Array | undefined> {
    const [row] = await this.#db
      .select({ signingKey: inboxRegistrations.signingKey })
      .from(inboxRegistrations)
      .where(eq(inboxRegistrations.address, address));
    return row ? new Uint8Array(row.signingKey) : undefined;
  }

  /** Queues a blob (see depositBlobs); deposit listeners hear of it after the commit. */
  async deposit(input: DepositInput): Promise<DepositResult> {
    const result = await this.#deposit(input);
    if (result instanceof InboxError) throw result;
    if (!result.idempotent) this.#announce(input, result);
    return result;
  }

  /** Unexpired blobs after `cursor`, oldest first, with the cursor of the next page if any. */
  async fetch(address: string, cursor: string | null, limit: number): Promise<FetchPage> {
    checkLimit(limit, MAX_FETCH_LIMIT);
    const codec = await this.#cursorCodec();
    const after = cursor === null ? -1 : codec.decode(address, cursor);
    const rows = await this.#unexpiredAfter(address, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map((row) => ({
        msgId: row.msg_id,
        ciphertext: toBase64(row.ciphertext),
        receivedAt: Number(row.received_at),
        expiresAt: Number(row.expires_at),
      })),
      nextCursor:
        rows.length > limit && last ? codec.encode(address, Number(last.received_at)) : null,
    };
  }

  /** Unexpired blobs queued for each of these addresses (at most the quota), in one statement. */
  async pending(addresses: readonly string[]): Promise<Map<string, number>> {
    const rows = await preparedRows<{ address: string; pending: number | string }>(
      this.#db,
      PENDING,
      [[...addresses], this.#options.now()],
    );
    const counts = new Map(addresses.map((address) => [address, 0]));
    for (const row of rows) counts.set(row.address, Number(row.pending));
    return counts;
  }

  /** Removes an unexpired blob; SVC_BLOB_NOT_FOUND when it is acknowledged or expired. */
  async ack(address: string, msgId: string): Promise<void> {
    const [row] = await preparedRows<{ acked: boolean }>(this.#db, ACK, [
      address,
      msgId,
      this.#options.now(),
    ]);
    if (!row?.acked) {
      throw new InboxError("SVC_BLOB_NOT_FOUND", "no such blob (acknowledged or expired)");
    }
  }

  /** Bridge backlog: unexpired blobs with receivedAt > `since`, oldest first. */
  async envelopesSince(address: string, since: number, limit: number): Promise<BridgeEnvelope[]> {
    if (!Number.isSafeInteger(since)) throw new RangeError("since must be a safe integer");
    checkLimit(limit, MAX_BACKLOG_LIMIT);
    const rows = await this.#unexpiredAfter(address, since, limit);
    return rows.map((row) => ({
      from: row.sender,
      bytes: toBase64(row.ciphertext),
      receivedAt: Number(row.received_at),
      msgId: row.msg_id,
    }));
  }

  /**
   * Calls `listener` after each deposit made through this store commits (two batches on two
   * connections may be heard in either order). Returns the unsubscribe function.
   */
  onDeposit(listener: DepositListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Deletes expired blobs in batches until none remain; returns how many went. */
  async pruneExpired(batchSize = PRUNE_BATCH): Promise<number> {
    checkLimit(batchSize, Number.MAX_SAFE_INTEGER);
    const now = this.#options.now();
    let total = 0;
    for (;;) {
      const [row] = await preparedRows<{ pruned: number }>(this.#db, PRUNE, [now, batchSize]);
      const pruned = Number(row?.pruned ?? 0);
      total += pruned;
      if (pruned < batchSize) return total;
    }
  }

  /** Readiness: the inbox tables answer. */
  async ping(): Promise<void> {
    await Promise.all([
      this.#db.select({ one: sql`1` }).from(inboxRegistrations).limit(1),
      this.#db.select({ one: sql`1` }).from(inboxBlobs).limit(1),
      this.#db.select({ one: sql`1` }).from(serverSecrets).limit(1),
    ]);
  }

  /** Unexpired blobs with receivedAt > `after`, oldest first: what fetches and bridges read. */
  #unexpiredAfter(address: string, after: number, limit: number): Promise<QueuedRow[]> {
    return preparedRows<QueuedRow>(this.#db, UNEXPIRED_AFTER, [
      address,
      after,
      this.#options.now(),
      limit,
    ]);
  }

  #cursorCodec(): Promise<CursorCodec> {
    this.#cursors ??= sharedSecret(this.#db, CURSOR_SECRET, this.#options.now()).then(
      (key) => new CursorCodec(key),
    );
    this.#cursors.catch(() => {
      this.#cursors = undefined; // retry on the next fetch
    });
    return this.#cursors;
  }

  #announce(input: DepositInput, stored: StoredDeposit): void {
    if (this.#listeners.size === 0) return;
    const { receivedAt, previousReceivedAt, expiresAt, wakeUpDue } = stored;
    let envelope: BridgeEnvelope | undefined;
    const deposit: CommittedDeposit = {
      address: input.address,
      receivedAt,
      previousReceivedAt,
      notified: this.#options.depositNotice !== undefined,
      ...(wakeUpDue === undefined ? {} : { wakeUpDue }),
      envelope: () => {
        // A read filters expired blobs; so does this (a zero minimum TTL allows one at once).
        if (expiresAt <= this.#options.now()) return undefined;
        envelope ??= {
          from: senderName(input.from, input.senderPublicKey),
          bytes: toBase64(input.ciphertext),
          receivedAt,
          msgId: input.msgId,
        };
        return envelope;
      },
    };
    for (const listener of this.#listeners) {
      try {
        listener(deposit);
      } catch (error) {
        this.#options.onListenerError?.(error);
      }
    }
  }
}

function checkLimit(limit: number, max: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > max) {
    throw new RangeError(`limit must be an integer in 1..${max}`);
  }
}
