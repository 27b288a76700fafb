import { badRequest } from "./errors.js";

/** A u64 as a decimal string without leading zeros (seq, lastSeqAcked). */
export const DECIMAL_U64_PATTERN = /^(0|[1-9][0-9]{0,19})$/;
const U64_MAX = (1n << 64n) - 1n;
/** Decimal without leading zeros, at most 16 digits: every safe integer fits. */
const SAFE_DECIMAL = /^(0|[1-9][0-9]{0,15})$/;

/** A u64 decimal string's value; undefined when it is not one. */
export function parseDecimalU64(text: string): bigint | undefined {
  if (!DECIMAL_U64_PATTERN.test(text)) return undefined;
  const value = BigInt(text);
  return value <= U64_MAX ? value : undefined;
}

/**
 * A non-negative safe integer sent as decimal text (query parameters, path segments): no sign,
 * leading zeros or spaces; anything else is a 400 naming the parameter.
 */
export function parseSafeDecimal(text: string, name: string): number {
  const value = SAFE_DECIMAL.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    throw badRequest(`${name} must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}`);
  }
  return value;
}
