/** postgres.js hands out Buffers; callers get plain Uint8Arrays from either driver. */
export function bytes(value: Uint8Array): Uint8Array {
  return value.constructor === Uint8Array ? value : new Uint8Array(value);
}
