import * as v from "valibot";
import { MSG_ID_PATTERN } from "../envelope.js";
import { ERROR_CODES } from "../errors.js";
import { LIMITS } from "../limits.js";
import { epochMs, OkResponse, signedPayloadEntries, text } from "./fields.js";

/** POST /v1/inbox/register. */
export const InboxRegisterBody = v.strictObject(
  {
    address: text("address"),
    signingPublicKey: text("signingPublicKey"),
    ...signedPayloadEntries,
  },
  "only address, signingPublicKey, signedAt and signature are allowed",
);

/** Unregister and ack: the signed payload alone. */
export const SignedPayloadBody = v.strictObject(
  signedPayloadEntries,
  "only signedAt and signature are allowed",
);

/** POST /v1/inbox/{address}. `from` is optional and names the sender for bridges. */
export const DepositBody = v.strictObject(
  {
    msgId: v.pipe(text("msgId"), v.regex(MSG_ID_PATTERN, "msgId must be 64 lower-hex digits")),
    ciphertext: text("ciphertext"),
    expiresAt: epochMs("expiresAt"),
    senderPublicKey: text("senderPublicKey"),
    from: v.optional(text("from")),
    ...signedPayloadEntries,
  },
  "only msgId, ciphertext, expiresAt, senderPublicKey, from, signedAt and signature are allowed",
);

/** A device list version a batch's recipients were chosen from. */
export const DeviceListVersion = v.strictObject(
  {
    account: text("account"),
    version: v.pipe(
      v.number("version must be an integer"),
      v.safeInteger("version must be an integer"),
      v.minValue(1, "version must be at least 1"),
    ),
  },
  "a deviceLists entry is {account, version} and nothing else",
);

/**
 * POST /v1/deposits: several deposits in one request (a send to an account's devices). Each item
 * is the body of POST /v1/inbox/{address}, signed for that route exactly as if sent alone.
 * `deviceLists`, optional: the device list versions the deposits' recipients were chosen from;
 * the server refuses the whole batch when one is not its latest, and one naming an account twice.
 */
export const DepositBatchBody = v.strictObject(
  {
    deviceLists: v.optional(
      v.pipe(
        v.array(DeviceListVersion, "deviceLists must be an array"),
        v.maxLength(
          LIMITS.depositsPerBatch,
          `at most ${LIMITS.depositsPerBatch} deviceLists entries per batch`,
        ),
      ),
    ),
    deposits: v.pipe(
      v.array(
        v.strictObject(
          { address: text("address"), body: DepositBody },
          "a deposit carries only address and body",
        ),
        "deposits must be an array",
      ),
      v.minLength(1, "deposits must not be empty"),
      v.maxLength(LIMITS.depositsPerBatch, `at most ${LIMITS.depositsPerBatch} deposits per batch`),
    ),
  },
  "only deposits and deviceLists are allowed",
);

/** One deposit's outcome in a batch: what POST /v1/inbox/{address} would have answered. */
export const DepositBatchItem = v.union([
  v.object({
    status: v.literal(200),
    idempotent: v.boolean(),
    expiresAt: v.optional(epochMs("expiresAt")),
  }),
  v.strictObject({
    status: v.pipe(v.number(), v.integer(), v.minValue(400), v.maxValue(499)),
    name: v.string(),
    code: v.picklist(ERROR_CODES),
    message: v.string(),
  }),
]);

/**
 * The latest version of each account a refused batch named (409 SVC_DEVICE_LIST_CHANGED); null
 * for an account without a list.
 */
export const LatestDeviceListVersions = v.array(
  v.object({ account: v.string(), version: v.nullable(v.number()) }),
);

/** The outcomes in the order of the request's deposits. */
export const DepositBatchResponse = v.object({ results: v.array(DepositBatchItem) });

/** POST /v1/inbox/{address}/fetch. */
export const FetchBody = v.strictObject(
  {
    cursor: v.optional(v.nullable(v.pipe(text("cursor"), v.maxLength(128, "cursor is too long")))),
    limit: v.optional(
      v.pipe(
        v.number("limit must be an integer"),
        v.safeInteger("limit must be an integer"),
        v.minValue(LIMITS.fetchLimit.min, "limit must be at least 1"),
        v.maxValue(LIMITS.fetchLimit.max, "limit must be at most 100"),
      ),
    ),
    ...signedPayloadEntries,
  },
  "only cursor, limit, signedAt and signature are allowed",
);

export const InboxBlobItem = v.object({
  msgId: v.pipe(v.string(), v.regex(MSG_ID_PATTERN)),
  ciphertext: v.string(),
  receivedAt: epochMs("receivedAt"),
  expiresAt: epochMs("expiresAt"),
});

export const FetchResponse = v.object({
  items: v.array(InboxBlobItem),
  nextCursor: v.nullable(v.string()),
});

/** A first deposit answers its clamped expiry; a repeat answers `{idempotent: true}` alone. */
export const DepositResponse = v.object({
  idempotent: v.boolean(),
  expiresAt: v.optional(epochMs("expiresAt")),
});

export const InboxRegisterResponse = OkResponse;
export const InboxUnregisterResponse = OkResponse;
export const InboxAckResponse = OkResponse;

export type DepositRequest = v.InferInput<typeof DepositBody>;
export type FetchRequest = v.InferInput<typeof FetchBody>;
export type InboxBlobItem = v.InferOutput<typeof InboxBlobItem>;
export type FetchPage = v.InferOutput<typeof FetchResponse>;
export type DepositAnswer = v.InferOutput<typeof DepositResponse>;
export type DepositBatchRequest = v.InferInput<typeof DepositBatchBody>;
export type DepositBatchItem = v.InferOutput<typeof DepositBatchItem>;
export type DeviceListVersion = v.InferOutput<typeof DeviceListVersion>;
