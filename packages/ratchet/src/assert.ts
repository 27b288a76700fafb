import { assertBytes } from "@svc/canonical";

/** Input checks. Caller mistakes throw TypeError/RangeError naming the argument. */

export const KEY_SIZE = 32;
/** Largest prekey id the directory accepts (docs/protocol.md §7): 2^53 - 1. */
export const MAX_KEY_ID = Number.MAX_SAFE_INTEGER;

export function assertKey(name: string, value: unknown): asserts value is Uint8Array {
  assertBytes(name, value);
  if (value.length !== KEY_SIZE) {
    throw new RangeError(`${name} must be ${KEY_SIZE} bytes, got ${value.length}`);
  }
}

export function assertKeyId(name: string, value: unknown): asserts value is number {
  if (typeof value !== "number") throw new TypeError(`${name} must be a number`);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be an integer in 0..2^53-1, got ${value}`);
  }
}

export function assertObject(name: string, value: unknown): asserts value is object {
  if (typeof value !== "object" || value === null) throw new TypeError(`${name} must be an object`);
}
