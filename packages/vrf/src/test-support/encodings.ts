/** Byte encodings for the tests: hex, little-endian integers and hostile point encodings. */

/** The order q of the prime subgroup (RFC 8032's L) and the field prime p. */
export const L = 2n ** 252n + 27742317777372353535851937790883648493n;
export const P = 2n ** 255n - 19n;

export function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function unhex(text: string): Uint8Array {
  return Uint8Array.from(text.match(/../g) ?? [], (b) => Number.parseInt(b, 16));
}

export function toLittleEndian(value: bigint, length = 32): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Number((value >> BigInt(8 * i)) & 0xffn);
  return out;
}

export function fromLittleEndian(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i] as number);
  return value;
}

/** y of two of the four points of order 8 (the other two have p - y). */
const ORDER_8_Y = 2707385501144840649318225287225658788936804267575313519463743609750303402022n;

/**
 * Every encoding of a point of small order with y < p: y = 1 (the identity), p - 1 (order 2),
 * 0 (order 4) and the two y of order 8, each with and without the sign bit. The sign bit on
 * x = 0 (y = 1, y = p - 1) is not a valid encoding at all; the other eight decode.
 */
export function smallOrderEncodings(): { bytes: Uint8Array; decodes: boolean }[] {
  return [1n, P - 1n, 0n, ORDER_8_Y, P - ORDER_8_Y].flatMap((y) =>
    [0n, 1n << 255n].map((signBit) => ({
      bytes: toLittleEndian(y | signBit),
      decodes: !(signBit && (y === 1n || y === P - 1n)),
    })),
  );
}

/**
 * Encodings that RFC 8032 section 5.1.3 refuses: y >= p (the identity and y = 2 written as
 * y + p, and 2^255 - 1), x = 0 with the sign bit, and a y with no point on the curve.
 */
export const INVALID_POINT_ENCODINGS: Record<string, Uint8Array> = {
  "y = p + 1 (the identity, non-canonical)": toLittleEndian(P + 1n),
  "y = p (0, non-canonical)": toLittleEndian(P),
  "y = 2^255 - 1": toLittleEndian(2n ** 255n - 1n),
  "y = 1 with the sign bit (x = 0)": toLittleEndian(1n | (1n << 255n)),
  "y = p - 1 with the sign bit (x = 0)": toLittleEndian(P - 1n + (1n << 255n)),
  "y = 2, not on the curve": toLittleEndian(2n),
};
