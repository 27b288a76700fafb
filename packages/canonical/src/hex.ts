import { CanonicalError } from "./errors.js";

const BYTE_TO_HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Lower-case hex. */
export function bytesToHex(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array)) throw new TypeError("bytes must be a Uint8Array");
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += BYTE_TO_HEX[bytes[i] as number];
  return out;
}

/** Strict lower-case hex: even length, digits 0-9a-f only. */
export function hexToBytes(text: string, expectedLength?: number): Uint8Array {
  if (typeof text !== "string") throw new TypeError("text must be a string");
  if (
    expectedLength !== undefined &&
    !(Number.isSafeInteger(expectedLength) && expectedLength >= 0)
  ) {
    throw new RangeError("expectedLength must be a non-negative integer");
  }
  if (text.length % 2 !== 0) throw invalid("odd length");
  const out = new Uint8Array(text.length / 2);
  if (expectedLength !== undefined && out.length !== expectedLength) {
    throw invalid(`expected ${expectedLength} bytes, got ${out.length}`);
  }
  for (let i = 0; i < out.length; i++) {
    out[i] = (nibble(text, 2 * i) << 4) | nibble(text, 2 * i + 1);
  }
  return out;
}

function nibble(text: string, index: number): number {
  const c = text.charCodeAt(index);
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  throw invalid(`invalid character at offset ${index}`);
}

function invalid(reason: string): CanonicalError {
  return new CanonicalError("INVALID_HEX", `invalid hex: ${reason}`);
}
