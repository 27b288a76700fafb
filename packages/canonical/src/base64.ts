import { CanonicalError } from "./errors.js";

const STD_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const INVALID = 0xff;

const STD = buildCodec(STD_ALPHABET);
const URL = buildCodec(URL_ALPHABET);

/** RFC 4648 section 4: standard alphabet, padded. */
export function encodeBase64(bytes: Uint8Array): string {
  return encode(bytes, STD, true);
}

/** Strict RFC 4648 section 4 decoder: only the canonical padded encoding of some bytes is accepted. */
export function decodeBase64(text: string, expectedLength?: number): Uint8Array {
  return decode(text, STD, true, expectedLength);
}

/** RFC 4648 section 5: URL-safe alphabet, no padding. */
export function encodeBase64Url(bytes: Uint8Array): string {
  return encode(bytes, URL, false);
}

/** Strict RFC 4648 section 5 decoder without padding. */
export function decodeBase64Url(text: string, expectedLength?: number): Uint8Array {
  return decode(text, URL, false, expectedLength);
}

interface Codec {
  /** Two output characters per 12-bit group, so encoding does one lookup per 1.5 bytes. */
  pairs: string[];
  chars: string;
  values: Uint8Array;
}

function buildCodec(alphabet: string): Codec {
  const pairs: string[] = new Array(4096);
  for (let i = 0; i < 4096; i++) pairs[i] = alphabet.charAt(i >> 6) + alphabet.charAt(i & 63);
  const values = new Uint8Array(256).fill(INVALID);
  for (let i = 0; i < 64; i++) values[alphabet.charCodeAt(i)] = i;
  return { pairs, chars: alphabet, values };
}

function encode(bytes: Uint8Array, codec: Codec, pad: boolean): string {
  if (!(bytes instanceof Uint8Array)) throw new TypeError("bytes must be a Uint8Array");
  const { pairs, chars } = codec;
  const full = bytes.length - (bytes.length % 3);
  let out = "";
  for (let i = 0; i < full; i += 3) {
    const n =
      ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out += (pairs[n >> 12] as string) + (pairs[n & 0xfff] as string);
  }
  const rest = bytes.length - full;
  if (rest === 1) {
    const n = bytes[full] as number;
    out += chars.charAt(n >> 2) + chars.charAt((n & 3) << 4) + (pad ? "==" : "");
  } else if (rest === 2) {
    const n = ((bytes[full] as number) << 8) | (bytes[full + 1] as number);
    out += chars.charAt(n >> 10) + chars.charAt((n >> 4) & 63) + chars.charAt((n & 15) << 2);
    if (pad) out += "=";
  }
  return out;
}

function decode(text: string, codec: Codec, padded: boolean, expectedLength?: number): Uint8Array {
  if (typeof text !== "string") throw new TypeError("text must be a string");
  if (
    expectedLength !== undefined &&
    !(Number.isSafeInteger(expectedLength) && expectedLength >= 0)
  ) {
    throw new RangeError("expectedLength must be a non-negative integer");
  }
  let length = text.length;
  if (padded) {
    if (length % 4 !== 0) throw invalid("length is not a multiple of 4");
    if (length > 0 && text.charCodeAt(length - 1) === 0x3d) length--;
    if (length > 0 && text.charCodeAt(length - 1) === 0x3d) length--;
  } else if (length % 4 === 1) {
    throw invalid("impossible length");
  }
  const tail = length % 4;
  const out = new Uint8Array(((length - tail) / 4) * 3 + (tail === 0 ? 0 : tail - 1));
  if (expectedLength !== undefined && out.length !== expectedLength) {
    throw invalid(`expected ${expectedLength} bytes, got ${out.length}`);
  }
  const values = codec.values;
  const full = length - tail;
  let o = 0;
  for (let i = 0; i < full; i += 4) {
    const n =
      (sextet(text, i, values) << 18) |
      (sextet(text, i + 1, values) << 12) |
      (sextet(text, i + 2, values) << 6) |
      sextet(text, i + 3, values);
    out[o++] = n >> 16;
    out[o++] = (n >> 8) & 0xff;
    out[o++] = n & 0xff;
  }
  if (tail === 2) {
    const n = (sextet(text, full, values) << 6) | sextet(text, full + 1, values);
    if ((n & 0x0f) !== 0) throw invalid("non-zero trailing bits");
    out[o] = n >> 4;
  } else if (tail === 3) {
    const n =
      (sextet(text, full, values) << 12) |
      (sextet(text, full + 1, values) << 6) |
      sextet(text, full + 2, values);
    if ((n & 0x03) !== 0) throw invalid("non-zero trailing bits");
    out[o++] = n >> 10;
    out[o] = (n >> 2) & 0xff;
  }
  return out;
}

function sextet(text: string, index: number, values: Uint8Array): number {
  const code = text.charCodeAt(index);
  const value = code < 256 ? (values[code] as number) : INVALID;
  if (value === INVALID) throw invalid(`invalid character at offset ${index}`);
  return value;
}

function invalid(reason: string): CanonicalError {
  return new CanonicalError("INVALID_BASE64", `invalid base64: ${reason}`);
}
