import { ed25519, x25519 } from "@noble/curves/ed25519.js";
import { concatBytes, decodeBase64Url, equalBytes } from "@svc/canonical";
import { KEY_SIZE } from "./assert.js";
import { type DhKeyPair, dh } from "./dh.js";
import { RatchetError } from "./errors.js";
import { defaultRandom, drawRandom, type RandomBytes } from "./random.js";

/**
 * X25519 and Ed25519 through the platform's WebCrypto when it has them (Node 20, current
 * browsers), faster than JavaScript field arithmetic. Being asynchronous, they serve X3DH/PQXDH
 * and the first ratchet step only; the synchronous Double Ratchet keeps @noble/curves, which is
 * also the fallback here. Importing a private key costs WebCrypto about as much as a DH, so each
 * imported key is remembered beside its bytes (below) and new key pairs are generated natively.
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
/** The Ed25519 group order L: a signature's S must be below it. */
const ED25519_ORDER = ed25519.Point.Fn.ORDER;
/** WebCrypto's key type, named without depending on the DOM typings. */
type NativeKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>;
const X25519 = { name: "X25519" } as const;
const ED25519 = { name: "Ed25519" } as const;

let x25519Available: Promise<boolean> | undefined;
let ed25519Available: Promise<boolean> | undefined;

/**
 * WebCrypto keys by the byte array they were imported from, with a copy of the bytes: a hit
 * counts only while the array still holds them. Entries live as long as the array does.
 */
interface Imported {
  bytes: Uint8Array;
  key: Promise<NativeKey>;
}
const x25519Private = new WeakMap<Uint8Array, Imported>();
const x25519Public = new WeakMap<Uint8Array, Imported>();
const ed25519Public = new WeakMap<Uint8Array, Imported & { strict: boolean }>();

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

/**
 * GENERATE_DH(). With a caller's `random` the same bytes give the same pair as
 * {@link generateDh}, drawn before this returns (so calls draw in the order they are made); with
 * the default source, WebCrypto generates the pair itself (from the same system generator) when
 * it can, and hands both halves over in one JWK export (a PKCS #8 export and a raw one cost twice
 * as much).
 */
export function generateDhAsync(random: RandomBytes): Promise<DhKeyPair> {
  if (random !== defaultRandom) {
    const privateKey = drawRandom(random, KEY_SIZE);
    return publicDhKeyAsync(privateKey).then((publicKey) => ({ privateKey, publicKey }));
  }
  return generateNativeDh();
}

async function generateNativeDh(): Promise<DhKeyPair> {
  if (!(await hasX25519())) {
    const privateKey = drawRandom(defaultRandom, KEY_SIZE);
    return { privateKey, publicKey: x25519.getPublicKey(privateKey) };
  }
  const subtle = globalThis.crypto.subtle;
  const pair = (await subtle.generateKey(X25519, true, ["deriveBits"])) as {
    privateKey: NativeKey;
  };
  const jwk = (await subtle.exportKey("jwk", pair.privateKey)) as { d?: unknown; x?: unknown };
  const privateKey = keyOfJwk(jwk.d);
  const publicKey = keyOfJwk(jwk.x);
  if (privateKey && publicKey) {
    remember(x25519Private, privateKey, Promise.resolve(pair.privateKey));
    return { privateKey, publicKey };
  }
  // A platform whose JWK is not RFC 8037's: the key bytes come from here instead.
  const drawn = drawRandom(defaultRandom, KEY_SIZE);
  return { privateKey: drawn, publicKey: await subtleX25519(drawn, BASE_POINT) };
}

function keyOfJwk(member: unknown): Uint8Array | undefined {
  try {
    return typeof member === "string" ? decodeBase64Url(member, KEY_SIZE) : undefined;
  } catch {
    return undefined;
  }
}

async function publicDhKeyAsync(privateKey: Uint8Array): Promise<Uint8Array> {
  if (!(await hasX25519())) return x25519.getPublicKey(privateKey);
  return subtleX25519(privateKey, BASE_POINT);
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
  if (!canonicalS(signature)) return false;
  let entry = ed25519Public.get(publicKey);
  if (!entry || !equalBytes(entry.bytes, publicKey)) {
    const key = globalThis.crypto.subtle.importKey("raw", copy(publicKey), ED25519, false, [
      "verify",
    ]);
    key.catch(() => undefined);
    entry = { bytes: publicKey.slice(), key, strict: strictKey(publicKey) };
    ed25519Public.set(publicKey, entry);
  }
  if (!entry.strict) return false;
  try {
    return await globalThis.crypto.subtle.verify(
      ED25519,
      await entry.key,
      copy(signature),
      copy(message),
    );
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

function canonicalS(signature: Uint8Array): boolean {
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(signature[i] as number);
  return s < ED25519_ORDER;
}

function strictKey(publicKey: Uint8Array): boolean {
  try {
    return !ed25519.Point.fromBytes(publicKey, false).isSmallOrder();
  } catch {
    return false;
  }
}

async function subtleX25519(privateKey: Uint8Array, publicKey: Uint8Array): Promise<Uint8Array> {
  const subtle = globalThis.crypto.subtle;
  const [ours, theirs] = await Promise.all([
    imported(x25519Private, privateKey, () =>
      subtle.importKey("pkcs8", copy(concatBytes(PKCS8_X25519_PREFIX, privateKey)), X25519, false, [
        "deriveBits",
      ]),
    ),
    imported(x25519Public, publicKey, () =>
      subtle.importKey("raw", copy(publicKey), X25519, false, []),
    ),
  ]);
  return new Uint8Array(await subtle.deriveBits({ ...X25519, public: theirs }, ours, 256));
}

function imported(
  cache: WeakMap<Uint8Array, Imported>,
  bytes: Uint8Array,
  load: () => Promise<NativeKey>,
): Promise<NativeKey> {
  const entry = cache.get(bytes);
  if (entry && equalBytes(entry.bytes, bytes)) return entry.key;
  const key = load();
  remember(cache, bytes, key);
  return key;
}

function remember(
  cache: WeakMap<Uint8Array, Imported>,
  bytes: Uint8Array,
  key: Promise<NativeKey>,
): void {
  // A refused import is not kept: the next call tries again and reports its own failure.
  cache.set(bytes, { bytes: bytes.slice(), key });
  key.catch(() => cache.delete(bytes));
}

/** Whether WebCrypto X25519 exists and agrees with @noble/curves (tested once). */
function hasX25519(): Promise<boolean> {
  x25519Available ??= probe(async () => {
    const key = new Uint8Array(KEY_SIZE).fill(7);
    const subtle = globalThis.crypto.subtle;
    const pkcs8 = copy(concatBytes(PKCS8_X25519_PREFIX, key));
    const [ours, base] = await Promise.all([
      subtle.importKey("pkcs8", pkcs8, X25519, false, ["deriveBits"]),
      subtle.importKey("raw", copy(BASE_POINT), X25519, false, []),
    ]);
    const derived = await subtle.deriveBits({ ...X25519, public: base }, ours, 256);
    return equalBytes(new Uint8Array(derived), x25519.getPublicKey(key));
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
