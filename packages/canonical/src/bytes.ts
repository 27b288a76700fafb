/** Byte helpers shared by every package: one definition of each. */

/** A Uint8Array, also one made in another realm (a worker, an iframe). */
export function isBytes(value: unknown): value is Uint8Array {
  return (
    value instanceof Uint8Array ||
    (ArrayBuffer.isView(value) && value.constructor.name === "Uint8Array")
  );
}

/** Caller mistakes throw TypeError naming the argument. */
export function assertBytes(name: string, value: unknown): asserts value is Uint8Array {
  if (!isBytes(value)) throw new TypeError(`${name} must be a Uint8Array`);
}

function assertCount(name: string, value: unknown): asserts value is number {
  if (typeof value !== "number") throw new TypeError(`${name} must be a number`);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative safe integer, got ${value}`);
  }
}

/** Big-endian 8-byte encoding of a non-negative safe integer (tree sizes, timestamps). */
export function u64be(n: number): Uint8Array {
  assertCount("n", n);
  const out = new Uint8Array(8);
  const view = new DataView(out.buffer);
  view.setUint32(0, Math.floor(n / 2 ** 32));
  view.setUint32(4, n % 2 ** 32);
  return out;
}

/** Concatenation of byte arrays into a new array. */
export function concatBytes(...arrays: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const [i, a] of arrays.entries()) {
    assertBytes(`arrays[${i}]`, a);
    length += a.length;
  }
  const out = new Uint8Array(length);
  let offset = 0;
  for (const a of arrays) {
    out.set(a, offset);
    offset += a.length;
  }
  return out;
}

/** Byte equality; the running time depends only on the lengths, not on where the arrays differ. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  assertBytes("a", a);
  assertBytes("b", b);
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}
