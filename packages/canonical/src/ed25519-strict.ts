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
