/** Checks of caller arguments (TypeError or RangeError naming the argument), not of wire input. */

/** `value` if it is a Uint8Array of `length` bytes. */
export function requireBytes(value: unknown, name: string, length: number): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array`);
  if (value.length !== length) throw new RangeError(`${name} must be ${length} bytes`);
  return value;
}

/** A copy of an optional 32-byte key option, checked. */
export function optionalKey(value: unknown, name: string): Uint8Array | undefined {
  return value === undefined ? undefined : requireBytes(value, name, 32).slice();
}
