import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { decodeBase64, encodeBase64 } from "./base64.js";
import { SignedNoteError } from "./errors.js";

/** Signature type of an Ed25519 note signature (C2SP signed-note). */
export const ED25519_TYPE = 0x01;
/** Signature type of an Ed25519 cosignature/v1 (C2SP tlog-cosignature). */
export const COSIGNATURE_V1_TYPE = 0x04;
export type KeyType = typeof ED25519_TYPE | typeof COSIGNATURE_V1_TYPE;

/** A trusted public key: a signer's (type 0x01) or a cosigner's (type 0x04). */
export interface Verifier {
  readonly name: string;
  /** The 4-byte key ID as an unsigned 32-bit integer. */
  readonly keyId: number;
  readonly type: KeyType;
  /** The 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
}

/** An Ed25519 note signer (type 0x01), as Go's note.NewSigner reads it. */
export interface Signer {
  readonly name: string;
  readonly keyId: number;
  /** The 32-byte Ed25519 seed (RFC 8032 secret key). */
  readonly seed: Uint8Array;
  readonly publicKey: Uint8Array;
  /**
   * Signs with this key where the platform has a faster Ed25519 than the portable one (node:crypto
   * signs ~20 times as fast as @noble/curves, which signNote uses otherwise). Ed25519 signatures
   * are deterministic: it must return the very bytes RFC 8032 gives.
   */
  readonly sign?: (message: Uint8Array) => Uint8Array;
}

const utf8 = new TextEncoder();

/**
 * A key name: non-empty, no "+" and no Unicode white space (Go's note.isValidName). Names are
 * JavaScript strings, so always valid UTF-8 once encoded, except for lone surrogates, refused.
 */
export function isValidKeyName(name: string): boolean {
  return name !== "" && !name.includes("+") && !/\s/u.test(name) && !/\p{Cs}/u.test(name);
}

/** SHA-256(name || "\n" || type || publicKey)[:4] as a big-endian unsigned integer. */
export function keyId(name: string, type: number, publicKey: Uint8Array): number {
  const nameBytes = utf8.encode(name);
  const input = new Uint8Array(nameBytes.length + 2 + publicKey.length);
  input.set(nameBytes, 0);
  input[nameBytes.length] = 0x0a;
  input[nameBytes.length + 1] = type;
  input.set(publicKey, nameBytes.length + 2);
  const digest = sha256(input);
  return new DataView(digest.buffer, digest.byteOffset, 4).getUint32(0, false);
}

/** Eight lower-case hex digits. */
export function formatKeyId(id: number): string {
  return id.toString(16).padStart(8, "0");
}

function malformedKey(message: string): SignedNoteError {
  return new SignedNoteError("KEY_MALFORMED", message);
}

/** Splits at the first `count` "+" signs (base64 may hold more). */
function chop(text: string, count: number): string[] {
  const parts: string[] = [];
  let rest = text;
  for (let i = 0; i < count; i++) {
    const plus = rest.indexOf("+");
    if (plus < 0) return parts;
    parts.push(rest.slice(0, plus));
    rest = rest.slice(plus + 1);
  }
  parts.push(rest);
  return parts;
}

function parseKeyId(hex: string | undefined): number {
  if (hex === undefined || !/^[0-9a-f]{8}$/.test(hex)) {
    throw malformedKey("a key ID is 8 lower-case hex digits");
  }
  return Number.parseInt(hex, 16);
}

function checkName(name: string | undefined): string {
  if (name === undefined || !isValidKeyName(name)) {
    throw malformedKey("a key name is non-empty, without '+' or white space");
  }
  return name;
}

/** `<name>+<key ID hex>+<base64(type || 32-byte public key)>`, type 0x01 or 0x04. */
export function formatVerifierKey(
  name: string,
  publicKey: Uint8Array,
  type: KeyType = ED25519_TYPE,
): string {
  checkName(name);
  if (publicKey.length !== 32) throw malformedKey("an Ed25519 public key is 32 bytes");
  if (type !== ED25519_TYPE && type !== COSIGNATURE_V1_TYPE) {
    throw malformedKey("the key type is 0x01 (Ed25519) or 0x04 (cosignature/v1)");
  }
  const material = new Uint8Array(33);
  material[0] = type;
  material.set(publicKey, 1);
  return `${name}+${formatKeyId(keyId(name, type, publicKey))}+${encodeBase64(material)}`;
}

/** Parses a verifier key string (type 0x01 or 0x04), checking its key ID. */
export function parseVerifierKey(vkey: string): Verifier {
  const parts = chop(vkey, 2);
  if (parts.length !== 3) throw malformedKey("a verifier key is <name>+<key ID>+<key>");
  const name = checkName(parts[0]);
  const id = parseKeyId(parts[1]);
  const material = decodeBase64(parts[2] ?? "");
  if (material === undefined) throw malformedKey("the key is not base64");
  const type = material[0];
  if (type !== ED25519_TYPE && type !== COSIGNATURE_V1_TYPE) {
    throw malformedKey("unknown key type (0x01 Ed25519 and 0x04 cosignature/v1 are known)");
  }
  if (material.length !== 33) throw malformedKey("an Ed25519 public key is 32 bytes");
  const publicKey = material.slice(1);
  if (keyId(name, type, publicKey) !== id) throw malformedKey("the key ID does not match the key");
  return { name, keyId: id, type, publicKey };
}

/** `PRIVATE+KEY+<name>+<key ID hex>+<base64(0x01 || 32-byte seed)>`, as Go's note writes it. */
export function formatSignerKey(name: string, seed: Uint8Array): string {
  checkName(name);
  if (seed.length !== 32) throw malformedKey("an Ed25519 seed is 32 bytes");
  const publicKey = ed25519.getPublicKey(seed);
  const material = new Uint8Array(33);
  material[0] = ED25519_TYPE;
  material.set(seed, 1);
  const id = formatKeyId(keyId(name, ED25519_TYPE, publicKey));
  return `PRIVATE+KEY+${name}+${id}+${encodeBase64(material)}`;
}

/** Parses a signer key in Go's note format (Ed25519 only), checking its key ID. */
export function parseSignerKey(skey: string): Signer {
  const parts = chop(skey, 4);
  if (parts.length !== 5 || parts[0] !== "PRIVATE" || parts[1] !== "KEY") {
    throw malformedKey("a signer key is PRIVATE+KEY+<name>+<key ID>+<key>");
  }
  const name = checkName(parts[2]);
  const id = parseKeyId(parts[3]);
  const material = decodeBase64(parts[4] ?? "");
  if (material === undefined) throw malformedKey("the key is not base64");
  if (material[0] !== ED25519_TYPE) throw malformedKey("unknown signer key type");
  if (material.length !== 33) throw malformedKey("an Ed25519 seed is 32 bytes");
  const seed = material.slice(1);
  const publicKey = ed25519.getPublicKey(seed);
  if (keyId(name, ED25519_TYPE, publicKey) !== id) {
    throw malformedKey("the key ID does not match the key");
  }
  return { name, keyId: id, seed, publicKey };
}
