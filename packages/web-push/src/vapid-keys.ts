import { createECDH } from "node:crypto";
import { encodeBase64Url } from "@svc/canonical";
import { PushError } from "./errors.js";
import { isP256Scalar, P256_SCALAR_LENGTH } from "./p256.js";

/** An application server's VAPID key pair (RFC 8292), P-256. */
export interface VapidKeys {
  /** The uncompressed point, 65 bytes. */
  publicKey: Uint8Array;
  /** The private scalar, 32 bytes. */
  privateKey: Uint8Array;
}

export function generateVapidKeys(): VapidKeys {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  // getPrivateKey drops leading zero bytes; the stored form is always 32 bytes.
  return vapidKeysFromPrivate(leftPad(ecdh.getPrivateKey()));
}

/** The key pair of a 32-byte private scalar (as SVC_PUSH_VAPID_KEY or a key file holds it). */
export function vapidKeysFromPrivate(privateKey: Uint8Array): VapidKeys {
  if (!(privateKey instanceof Uint8Array) || !isP256Scalar(privateKey)) {
    throw new PushError("INVALID_VAPID_KEY", "a VAPID private key is a P-256 scalar of 32 bytes");
  }
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(privateKey);
  return {
    publicKey: new Uint8Array(ecdh.getPublicKey()),
    privateKey: Uint8Array.from(privateKey),
  };
}

/** The public key as the `k=` parameter and `applicationServerKey` carry it: base64url, no padding. */
export function vapidPublicKeyBase64Url(keys: VapidKeys): string {
  return encodeBase64Url(keys.publicKey);
}

function leftPad(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(P256_SCALAR_LENGTH);
  out.set(bytes, P256_SCALAR_LENGTH - bytes.length);
  return out;
}
