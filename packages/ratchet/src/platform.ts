import { ed25519, x25519 } from "@noble/curves/ed25519.js";
import { concatBytes, equalBytes } from "@svc/canonical";
import { KEY_SIZE } from "./assert.js";
import { type DhKeyPair, dh } from "./dh.js";
import { RatchetError } from "./errors.js";
import { drawRandom, type RandomBytes } from "./random.js";

/**
 * X25519 and Ed25519 through the platform's WebCrypto when it has them (Node 20, current
 * browsers): an order of magnitude faster than JavaScript field arithmetic, which is what makes
 * session setup cheap. Being asynchronous, they serve X3DH/PQXDH and the first ratchet step only;
 * the synchronous Double Ratchet keeps @noble/curves, which is also the fallback here.
 */

/** PKCS #8 wrapping of a raw X25519 private key (RFC 8410): this prefix, then the 32 bytes. */
const PKCS8_X25519_PREFIX = Uint8Array.of(
  0x30,
  0x2e,
  0x02,
  0x01,
  0x00,
  0x30,
  0x05,
  0x06,
  0x03,
  0x2b,
  0x65,
  0x6e,
  0x04,
  0x22,
  0x04,
  0x20,
);
/** u = 9: X25519(k, 9) is k's public key, so WebCrypto derives public keys too. */
const BASE_POINT = Uint8Array.of(9, ...new Uint8Array(31));
/** The Ed25519 group order L, little-endian: a signature's S must be below it. */
const ED25519_ORDER = ed25519.Point.Fn.ORDER;

const X25519 = { name: "X25519" } as const;
const ED25519 = { name: "Ed25519" } as const;

let x25519Available: Promise<boolean> | undefined;
let ed25519Available: Promise<boolean> | undefined;

/** DH(private, public) as {@link dh} computes it, a small-order key refused alike. */
export async function dhAsync(privateKey: Uint8Array, publicKey: Uint8Array): Promise<Uint8Array> {
  if (!(await hasX25519())) return dh(privateKey, publicKey);
  // WebCrypto refuses the all-zero output of a small-order key (checked again, to be sure).
  const shared = await subtleX25519(privateKey, publicKey).catch(() => undefined);
  if (!shared || shared.every((byte) => byte === 0)) {
    throw new RatchetError("RATCHET_INVALID_KEY", "X25519 public key of small order");
  }
  return shared;
}

/** Every DH of a key agreement, at once. */
export function dhAllAsync(pairs: readonly [Uint8Array, Uint8Array][]): Promise<Uint8Array[]> {
  return Promise.all(pairs.map(([privateKey, publicKey]) => dhAsync(privateKey, publicKey)));
}

/** GENERATE_DH() as {@link generateDh} does it: the same random bytes give the same pair. */
export async function generateDhAsync(random: RandomBytes): Promise<DhKeyPair> {
  const privateKey = drawRandom(random, KEY_SIZE);
  const publicKey = (await hasX25519())
    ? await subtleX25519(privateKey, BASE_POINT)
    : x25519.getPublicKey(privateKey);
  return { privateKey, publicKey };
}

/**
 * Strict Ed25519 verification, the same verdict as @noble/curves with `zip215: false` on every
 * signature an honest signer makes: S below L, the key a canonical encoding of a point that is
 * not of small order, checked here; R must be canonical in both (WebCrypto compares it as
 * bytes). The two differ only in cofactored vs cofactorless checking, which matters only for a
 * signature the key's owner crafts with a small-order component.
 */
export async function verifyEd25519Async(
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
): Promise<boolean> {
  if (!(await hasEd25519())) return verifyEd25519(signature, message, publicKey);
  if (!strictEncoding(signature, publicKey)) return false;
  try {
    const subtle = globalThis.crypto.subtle;
    const key = await subtle.importKey("raw", copy(publicKey), ED25519, false, ["verify"]);
    return await subtle.verify(ED25519, key, copy(signature), copy(message));
  } catch {
    return false;
  }
}

/** Strict RFC 8032 verification in JavaScript. */
export function verifyEd25519(
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
): boolean {
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}

function strictEncoding(signature: Uint8Array, publicKey: Uint8Array): boolean {
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(signature[i] as number);
  if (s >= ED25519_ORDER) return false;
  try {
    return !ed25519.Point.fromBytes(publicKey, false).isSmallOrder();
  } catch {
    return false;
  }
}

async function subtleX25519(privateKey: Uint8Array, publicKey: Uint8Array): Promise<Uint8Array> {
  const subtle = globalThis.crypto.subtle;
  const pkcs8 = copy(concatBytes(PKCS8_X25519_PREFIX, privateKey));
  const [ours, theirs] = await Promise.all([
    subtle.importKey("pkcs8", pkcs8, X25519, false, ["deriveBits"]),
    subtle.importKey("raw", copy(publicKey), X25519, false, []),
  ]);
  return new Uint8Array(await subtle.deriveBits({ ...X25519, public: theirs }, ours, 256));
}

/** Whether WebCrypto X25519 exists and agrees with @noble/curves (tested once). */
function hasX25519(): Promise<boolean> {
  x25519Available ??= probe(async () => {
    const key = new Uint8Array(KEY_SIZE).fill(7);
    const derived = await subtleX25519(key, BASE_POINT);
    return equalBytes(derived, x25519.getPublicKey(key));
  });
  return x25519Available;
}

/** Whether WebCrypto Ed25519 exists and verifies a @noble/curves signature (tested once). */
function hasEd25519(): Promise<boolean> {
  ed25519Available ??= probe(async () => {
    const seed = new Uint8Array(KEY_SIZE).fill(7);
    const message = Uint8Array.of(1, 2, 3);
    const subtle = globalThis.crypto.subtle;
    const key = await subtle.importKey("raw", copy(ed25519.getPublicKey(seed)), ED25519, false, [
      "verify",
    ]);
    return subtle.verify(ED25519, key, copy(ed25519.sign(message, seed)), message);
  });
  return ed25519Available;
}

async function probe(run: () => Promise<boolean>): Promise<boolean> {
  try {
    return await run();
  } catch {
    return false;
  }
}

/** WebCrypto wants a BufferSource backed by a plain ArrayBuffer. */
function copy(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(bytes);
}
