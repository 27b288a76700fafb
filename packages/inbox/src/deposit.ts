import { type Database, preparedRows } from "@svc/db";
import { InboxError } from "./errors.js";
import { clampExpiry, retryAfterSeconds, senderName, type TtlBounds } from "./policy.js";

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

export type DepositResult = { idempotent: true } | StoredDeposit;

export interface StoredDeposit {
  idempotent: false;
  expiresAt: number;
  receivedAt: number;
  /**
   * The recipient's receivedAt before this deposit: no blob of the recipient lies between the two,
   * so a reader whose cursor is this value has exactly this blob to read next.
   */
  previousReceivedAt: number;
  /** What the store's DepositWakeCheck answered for this blob; undefined without one. */
  wakeUpDue?: boolean | null;
}

export interface DepositPolicy extends TtlBounds {
  quota: number;
}

/**
 * A NOTIFY the deposit transaction sends on PostgreSQL: `prefix + address` on `channel` for each
 * recipient it stored a blob for, delivered at commit.
 */
export interface DepositNotice {
  channel: string;
  prefix: string;
}

/**
 * A check the deposit statement also makes for each blob it stores:
 * `sqlFunction(address text, now bigint, argument bigint) returns boolean`, a function another
 * package's migration made (the inbox's SQL names none). Its answer, null included, is
 * StoredDeposit.wakeUpDue.
 */
export interface DepositWakeCheck {
  /** A plain lower-case SQL identifier. */
  sqlFunction: string;
  argument: number;
}

interface DepositRow {
  outcome: "stored" | "repeat" | "wrong_key" | "not_registered" | "quota";
  received_at: number | string | bigint | null;
  previous_received_at: number | string | bigint | null;
  oldest_expires_at: number | string | bigint | null;
  wake_up_due?: boolean | null;
}

// svc_inbox_deposit (migrations 0005, 0007, 0008) runs the whole batch in the database, so a
// batch costs one round trip and one implicit transaction, whatever its size.
const DEPOSIT = `select outcome, received_at, previous_received_at, oldest_expires_at
  from svc_inbox_deposit(
  $1::text[], $2::text[], $3::bytea, $4::integer[], $5::bytea, $6::text[], $7::bigint[],
  $8::bigint, $9::integer, $10::text, $11::text)`;

const SQL_IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The deposit statement with the wake check beside each row, in the same statement: the function's
 * rows come in input order, so the row's ordinality indexes its address.
 */
export function depositWithWakeCheck(check: DepositWakeCheck): string {
  if (!SQL_IDENTIFIER.test(check.sqlFunction)) {
    throw new TypeError("depositWakeCheck.sqlFunction must be a plain lower-case SQL identifier");
  }
  if (!Number.isSafeInteger(check.argument)) {
    throw new RangeError("depositWakeCheck.argument must be a safe integer");
  }
  return `select outcome, received_at, previous_received_at, oldest_expires_at,
  outcome = 'stored' and ${check.sqlFunction}(($1::text[])[n::integer], $8::bigint, $12::bigint)
    as wake_up_due
  from svc_inbox_deposit(
  $1::text[], $2::text[], $3::bytea, $4::integer[], $5::bytea, $6::text[], $7::bigint[],
  $8::bigint, $9::integer, $10::text, $11::text) with ordinality as deposit(
    outcome, received_at, previous_received_at, oldest_expires_at, n)
  order by n`;
}

/**
 * A batch of deposits (recipients may repeat); answers each with its result or the InboxError
 * that refuses it, in input order. The database function locks the recipients' registration rows
 * (in address order, so batches cannot deadlock), which serializes the deposits of one address
 * across every instance: the repeat check, the quota and the receivedAt sequence all see every
 * earlier deposit, including those earlier in the same batch.
 */
export async function depositBlobs(
  db: Database,
  inputs: readonly DepositInput[],
  now: number,
  policy: DepositPolicy,
  notice?: DepositNotice,
  wakeCheck?: { statement: string; argument: number },
): Promise<Array<DepositResult | InboxError>> {
  const expiries = inputs.map((input) => clampExpiry(input.expiresAt, now, policy));
  let end = 0;
  const params = [
    inputs.map((input) => input.address),
    inputs.map((input) => input.msgId),
    Buffer.concat(inputs.map((input) => input.ciphertext)),
    inputs.map((input) => {
      end += input.ciphertext.length;
      return end;
    }),
    Buffer.concat(inputs.map((input) => input.senderPublicKey)),
    inputs.map((input) => senderName(input.from, input.senderPublicKey)),
    expiries,
    now,
    policy.quota,
    notice?.channel ?? null,
    notice?.prefix ?? null,
  ];
  const rows =
    wakeCheck === undefined
      ? await preparedRows<DepositRow>(db, DEPOSIT, params)
      : await preparedRows<DepositRow>(db, wakeCheck.statement, [...params, wakeCheck.argument]);
  if (rows.length !== inputs.length) {
    throw new Error(`svc_inbox_deposit answered ${rows.length} rows for ${inputs.length} inputs`);
  }
  return rows.map((row, i) => answer(row, expiries[i] as number, now, policy.quota));
}

function answer(
  row: DepositRow,
  expiresAt: number,
  now: number,
  quota: number,
): DepositResult | InboxError {
  switch (row.outcome) {
    case "stored":
      return {
        idempotent: false,
        expiresAt,
        receivedAt: Number(row.received_at),
        previousReceivedAt: Number(row.previous_received_at),
        ...(row.wake_up_due === undefined ? {} : { wakeUpDue: row.wake_up_due }),
      };
    case "repeat":
      return { idempotent: true };
    case "wrong_key":
      return new InboxError("SVC_WRONG_KEY", "this msgId is queued under another sender key");
    case "not_registered":
      return new InboxError("SVC_NOT_REGISTERED", "the recipient has no inbox registration");
    case "quota":
      return new InboxError(
        "SVC_QUOTA_EXCEEDED",
        `the recipient's inbox holds ${quota} blobs`,
        retryAfterSeconds(Number(row.oldest_expires_at ?? now), now),
      );
  }
}
