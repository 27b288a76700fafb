import { createCipheriv, createECDH, createHmac, randomBytes } from "node:crypto";
import { PushError } from "./errors.js";
import { P256_POINT_LENGTH } from "./p256.js";
import { AUTH_SECRET_LENGTH } from "./subscription-keys.js";

/** The record size written in the header: one record holds any message a push service takes. */
export const RECORD_SIZE = 4096;
const SALT_LENGTH = 16;
const TAG_LENGTH = 16;
/** salt || rs (4) || idlen (1) || keyid (the 65-byte ephemeral public key). */
const HEADER_LENGTH = SALT_LENGTH + 4 + 1 + P256_POINT_LENGTH;
/**
 * The largest plaintext: push services accept bodies of 4096 bytes (RFC 8291 section 4), and a
 * body is the header, the plaintext, the last-record delimiter and the tag.
 */
export const MAX_PLAINTEXT_LENGTH = RECORD_SIZE - HEADER_LENGTH - 1 - TAG_LENGTH;

const KEY_INFO = Buffer.from("WebPush: info\0", "latin1");
const CEK_INFO = Buffer.from("Content-Encoding: aes128gcm\0", "latin1");
const NONCE_INFO = Buffer.from("Content-Encoding: nonce\0", "latin1");

/** What the test vectors pin: the salt and the ephemeral key are otherwise fresh per message. */
export interface FixedEncryption {
  salt: Uint8Array;
  ephemeralPrivateKey: Uint8Array;
}

/**
 * The RFC 8291 `aes128gcm` body of one Web Push message to a subscription: a fresh ephemeral
 * P-256 key and 16-byte salt (unless `fixed`), one record of size 4096.
 */
export function encryptWakeUp(
  plaintext: Uint8Array,
  target: { p256dh: Uint8Array; auth: Uint8Array },
  fixed?: FixedEncryption,
): Uint8Array {
  if (plaintext.length > MAX_PLAINTEXT_LENGTH) {
    throw new PushError(
      "PAYLOAD_TOO_LARGE",
      `a Web Push plaintext is at most ${MAX_PLAINTEXT_LENGTH} bytes`,
    );
  }
  if (target.p256dh.length !== P256_POINT_LENGTH || target.p256dh[0] !== 0x04) {
    throw invalidPoint();
  }
  if (target.auth.length !== AUTH_SECRET_LENGTH) {
    throw new PushError("INVALID_SUBSCRIPTION", `auth must be ${AUTH_SECRET_LENGTH} bytes`);
  }
  const ecdh = createECDH("prime256v1");
  if (fixed) ecdh.setPrivateKey(fixed.ephemeralPrivateKey);
  else ecdh.generateKeys();
  const asPublic = ecdh.getPublicKey();
  const salt = fixed ? fixed.salt : randomBytes(SALT_LENGTH);
  let ecdhSecret: Buffer;
  try {
    // Checks the point is on the curve, as a separate check would at the same cost again.
    ecdhSecret = ecdh.computeSecret(target.p256dh);
  } catch {
    throw invalidPoint();
  }
  // RFC 8291 section 3.4 and RFC 8188 section 2.2: HKDF-SHA-256, every output one block long,
  // so each expand is a single HMAC over info || 0x01.
  const ikm = hmac(hmac(target.auth, ecdhSecret), KEY_INFO, target.p256dh, asPublic, ONE);
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, CEK_INFO, ONE).subarray(0, 16);
  const nonce = hmac(prk, NONCE_INFO, ONE).subarray(0, 12);

  const cipher = createCipheriv("aes-128-gcm", cek, nonce);
  const body = Buffer.alloc(HEADER_LENGTH + plaintext.length + 1 + TAG_LENGTH);
  Buffer.from(salt.buffer, salt.byteOffset, salt.byteLength).copy(body, 0);
  body.writeUInt32BE(RECORD_SIZE, SALT_LENGTH);
  body[SALT_LENGTH + 4] = P256_POINT_LENGTH;
  asPublic.copy(body, SALT_LENGTH + 5);
  let at = HEADER_LENGTH;
  at += cipher.update(plaintext).copy(body, at);
  // 0x02: the delimiter of the last (here the only) record, with no padding after it.
  at += cipher.update(Buffer.of(0x02)).copy(body, at);
  at += cipher.final().copy(body, at);
  cipher.getAuthTag().copy(body, at);
  return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
}

const ONE = Buffer.of(0x01);

function hmac(key: Uint8Array, ...data: Uint8Array[]): Buffer {
  const mac = createHmac("sha256", key);
  for (const part of data) mac.update(part);
  return mac.digest();
}

const invalidPoint = () =>
  new PushError("INVALID_SUBSCRIPTION", "p256dh must be an uncompressed P-256 point of 65 bytes");
