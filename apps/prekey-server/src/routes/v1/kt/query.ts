import { badRequest } from "../../../errors.js";

const DECIMAL = /^(0|[1-9][0-9]{0,15})$/;

/**
 * A tree size or leaf index from a path or query parameter: a decimal integer 0..2^53-1 without
 * sign, leading zeros or spaces; anything else (or a missing required one) is a 400 naming it.
 */
export function treeSizeParam(value: string | undefined, name: string): number;
export function treeSizeParam(
  value: string | undefined,
  name: string,
  optional: true,
): number | undefined;
export function treeSizeParam(
  value: string | undefined,
  name: string,
  optional = false,
): number | undefined {
  if (value === undefined && optional) return undefined;
  if (value === undefined) throw badRequest(`${name} is required`);
  const n = DECIMAL.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n)) {
    throw badRequest(`${name} must be a whole number from 0 to 9007199254740991`);
  }
  return n;
}
