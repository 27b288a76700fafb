import { hexToBytes } from "./hex.js";

export const ED25519_SIGNATURE_LENGTH = 64;
export const ED25519_PUBLIC_KEY_LENGTH = 32;

/** Group order L = 2^252 + 27742317777372353535851937790883648493, little-endian. */
const L = Uint8Array.from([
  0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
]);

/**
 * The RFC 8032 section 5.1.7 checks that neither tweetnacl nor every OpenSSL build makes: lengths,
 * S < L (else S + L is a second valid signature), and canonical encodings of R and A.
 */
export function passesStrictEd25519Checks(signature: Uint8Array, publicKey: Uint8Array): boolean {
  return (
    signature.length === ED25519_SIGNATURE_LENGTH &&
    publicKey.length === ED25519_PUBLIC_KEY_LENGTH &&
    isCanonicalPointEncoding(signature, 0) &&
    isScalarBelowOrder(signature, 32) &&
    isCanonicalPointEncoding(publicKey, 0)
  );
}

/** Little-endian 32-byte scalar at `offset` is < L. */
export function isScalarBelowOrder(bytes: Uint8Array, offset: number): boolean {
  for (let i = 31; i >= 0; i--) {
    const b = bytes[offset + i] as number;
    const l = L[i] as number;
    if (b !== l) return b < l;
  }
  return false;
}

/**
 * y (sign bit cleared) must be < p = 2^255 - 19, and x = 0 (y = 1 or y = p - 1) has only the
 * encoding with the sign bit clear.
 */
export function isCanonicalPointEncoding(bytes: Uint8Array, offset: number): boolean {
  const top = bytes[offset + 31] as number;
  const y0 = bytes[offset] as number;
  let middleAllOnes = true;
  let middleAllZeros = true;
  for (let i = 1; i < 31; i++) {
    const b = bytes[offset + i] as number;
    if (b !== 0xff) middleAllOnes = false;
    if (b !== 0) middleAllZeros = false;
  }
  const y = top & 0x7f;
  // y >= p - 1: 0xec..0xff, then 0xff * 30, then 0x7f.
  if (middleAllOnes && y === 0x7f && y0 >= 0xec) {
    return y0 === 0xec && top === 0x7f;
  }
  const isYOne = middleAllZeros && y === 0 && y0 === 1;
  return !(isYOne && top !== y);
}

/**
 * The y coordinates of the eight points of small order (0, 1, p - 1 and the two of order 8),
 * little-endian; x's sign bit does not change the order. The same list libsodium refuses.
 */
const SMALL_ORDER_Y = [
  "0000000000000000000000000000000000000000000000000000000000000000",
  "0100000000000000000000000000000000000000000000000000000000000000",
  "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
].map((hex) => hexToBytes(hex));

/**
 * The 32 bytes at `offset` encode a point of small order, with either sign bit: as a public key,
 * one that signs for no secret (the identity verifies any message with R = identity, S = 0).
 * Non-canonical encodings of y (y >= p) are the strict checks' to refuse.
 */
export function isSmallOrderPoint(bytes: Uint8Array, offset = 0): boolean {
  return SMALL_ORDER_Y.some((y) => {
    for (let i = 0; i < 31; i++) if (bytes[offset + i] !== y[i]) return false;
    return ((bytes[offset + 31] as number) & 0x7f) === y[31];
  });
}
