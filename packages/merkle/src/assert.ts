import { assertBytes, isBytes } from "@svc/canonical";

/** Input checks shared by the package. Caller mistakes throw TypeError/RangeError naming the argument. */

export const HASH_SIZE = 32;

export function assertHash(name: string, value: unknown): asserts value is Uint8Array {
  assertBytes(name, value);
  if (value.length !== HASH_SIZE) {
    throw new RangeError(`${name} must be ${HASH_SIZE} bytes, got ${value.length}`);
  }
}

/** A tree size, leaf index or level: a non-negative safe integer. */
export function assertCount(name: string, value: unknown): asserts value is number {
  if (typeof value !== "number") throw new TypeError(`${name} must be a number`);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative safe integer, got ${value}`);
  }
}

export function isHash(value: unknown): value is Uint8Array {
  return isBytes(value) && value.length === HASH_SIZE;
}
