/**
 * Ed25519 forgeries for verifier tests: inputs that a lax verifier (tweetnacl alone, libsodium
 * alone, some OpenSSL builds) answers differently from RFC 8032 with its strict checks.
 */
import { sha512 } from "@noble/hashes/sha2.js";
import { ed25519KeyPairFromSeed } from "./ed25519.js";

/** Ed25519 group order. */
export const L = 2n ** 252n + 27742317777372353535851937790883648493n;
export const P = 2n ** 255n - 19n;

export function toLittleEndian(value: bigint, length = 32): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    out[i] = Number((value >> BigInt(8 * i)) & 0xffn);
  }
  return out;
}

export function fromLittleEndian(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i] as number);
  return value;
}

/** The RFC 8032 secret scalar of a seed. */
export function secretScalar(seed: Uint8Array): bigint {
  const h = sha512(seed).slice(0, 32);
  h[0] = (h[0] as number) & 248;
  h[31] = ((h[31] as number) & 127) | 64;
  return fromLittleEndian(h);
}

function challenge(r: Uint8Array, a: Uint8Array, message: Uint8Array): bigint {
  return fromLittleEndian(sha512(Uint8Array.from([...r, ...a, ...message]))) % L;
}

/** Encodings of the identity point (x = 0, y = 1): canonical, y + p, and each with the sign bit. */
export const IDENTITY = {
  canonical: toLittleEndian(1n),
  yPlusP: toLittleEndian(P + 1n),
  signBit: toLittleEndian(1n | (1n << 255n)),
  yPlusPSignBit: toLittleEndian(P + 1n + (1n << 255n)),
};

/** A second encoding of the point with y = p - 1 (x = 0): the sign bit set. */
export const MINUS_ONE_SIGN_BIT = toLittleEndian(P - 1n + (1n << 255n));

/** y of two of the four points of order 8 (the other two have p - y). */
export const ORDER_8_Y =
  2707385501144840649318225287225658788936804267575313519463743609750303402022n;

/**
 * A public key for every point of small order: y = 0, 1, p - 1 and the two y of the points of
 * order 8, each with and without the sign bit. `canonical` is false for the sign bit on x = 0
 * (y = 1 and y = p - 1), an encoding RFC 8032 refuses; the other eight verify under RFC 8032.
 */
export function smallOrderKeys(): { key: Uint8Array; canonical: boolean }[] {
  return [0n, 1n, P - 1n, ORDER_8_Y, P - ORDER_8_Y].flatMap((y) =>
    [0n, 1n << 255n].map((signBit) => ({
      key: toLittleEndian(y | signBit),
      canonical: !(signBit && (y === 1n || y === P - 1n)),
    })),
  );
}

/** A valid signature with S replaced by S + L, which tweetnacl alone accepts. */
export function malleate(signature: Uint8Array): Uint8Array {
  const s = fromLittleEndian(signature.slice(32)) + L;
  return Uint8Array.from([...signature.slice(0, 32), ...toLittleEndian(s)]);
}

/**
 * With public key A = identity (under any of its encodings), R = rB and S = r verify for every
 * message: [S]B = R + [k]A.
 */
export function signatureForIdentityKey(nonceSeed: Uint8Array): Uint8Array {
  const r = ed25519KeyPairFromSeed(nonceSeed).publicKey;
  return Uint8Array.from([...r, ...toLittleEndian(secretScalar(nonceSeed) % L)]);
}

/** A signature with R = identity under the given encoding: S = k * a for the seed's key. */
export function signatureWithIdentityR(
  message: Uint8Array,
  seed: Uint8Array,
  encoding: Uint8Array,
): Uint8Array {
  const a = ed25519KeyPairFromSeed(seed).publicKey;
  const s = (challenge(encoding, a, message) * secretScalar(seed)) % L;
  return Uint8Array.from([...encoding, ...toLittleEndian(s)]);
}

/**
 * A signature that verifies under RFC 8032 for a public key A of small order: R = rB and S = r,
 * with the nonce chosen so that the challenge k is a multiple of 8, making [k]A the identity.
 */
export function signatureForSmallOrderKey(publicKey: Uint8Array, message: Uint8Array): Uint8Array {
  for (let n = 0; ; n++) {
    const nonceSeed = toLittleEndian(BigInt(n));
    const r = ed25519KeyPairFromSeed(nonceSeed).publicKey;
    if (challenge(r, publicKey, message) % 8n === 0n) {
      return Uint8Array.from([...r, ...toLittleEndian(secretScalar(nonceSeed) % L)]);
    }
  }
}
