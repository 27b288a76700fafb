import * as v from "valibot";
import { signedPayloadEntries } from "../../../http/signed-body.js";

/** Register, unregister, fetch and ack bodies are small; 16 KiB leaves room for any of them. */
export const SMALL_BODY_LIMIT = 16 * 1024;
/** Room for the JSON members around a deposit's base64 ciphertext. */
const DEPOSIT_JSON_OVERHEAD = 8 * 1024;
export const MSG_ID_PATTERN = /^[0-9a-f]{64}$/;
export const DEFAULT_FETCH_LIMIT = 50;

/** The most bytes a deposit body may have: base64 of maxBlobBytes plus the other members. */
export function depositBodyLimit(maxBlobBytes: number): number {
  return Math.ceil((maxBlobBytes * 4) / 3) + DEPOSIT_JSON_OVERHEAD;
}

const text = (field: string) => v.string(`${field} must be a string`);
const epochMs = (field: string) =>
  v.pipe(
    v.number(`${field} must be an integer`),
    v.safeInteger(`${field} must be an integer`),
    v.minValue(0, `${field} must not be negative`),
  );

/** Addresses are checked after the schema so that a bad one is SVC_INVALID_ADDRESS (D2). */
export const RegisterBody = v.strictObject(
  {
    address: text("address"),
    signingPublicKey: text("signingPublicKey"),
    ...signedPayloadEntries,
  },
  "only address, signingPublicKey, signedAt and signature are allowed",
);

export const SignedPayloadBody = v.strictObject(
  signedPayloadEntries,
  "only signedAt and signature are allowed",
);

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

export const FetchBody = v.strictObject(
  {
    cursor: v.optional(v.nullable(v.pipe(text("cursor"), v.maxLength(128, "cursor is too long")))),
    limit: v.optional(
      v.pipe(
        v.number("limit must be an integer"),
        v.safeInteger("limit must be an integer"),
        v.minValue(1, "limit must be at least 1"),
        v.maxValue(100, "limit must be at most 100"),
      ),
    ),
    ...signedPayloadEntries,
  },
  "only cursor, limit, signedAt and signature are allowed",
);
