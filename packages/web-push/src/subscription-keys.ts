import { CanonicalError, decodeBase64Url } from "@svc/canonical";
import { PushError } from "./errors.js";
import { P256_POINT_LENGTH, p256PublicKey } from "./p256.js";

/** Bytes of a subscription's authentication secret (RFC 8291 section 3.2). */
export const AUTH_SECRET_LENGTH = 16;

/** A user agent's subscription keys, decoded. */
export interface SubscriptionKeys {
  /** Its ECDH public key: an uncompressed P-256 point, 65 bytes. */
  p256dh: Uint8Array;
  /** Its authentication secret, 16 bytes. */
  auth: Uint8Array;
}

/**
 * The `keys` of a PushSubscription JSON, decoded and checked: base64url with or without `=`
 * padding (browsers send none), p256dh a point on P-256, auth 16 bytes.
 */
export function decodeSubscriptionKeys(p256dh: string, auth: string): SubscriptionKeys {
  const point = decode(p256dh, "p256dh");
  if (point.length !== P256_POINT_LENGTH || p256PublicKey(point) === undefined) {
    throw invalid("p256dh must be an uncompressed P-256 point of 65 bytes");
  }
  const secret = decode(auth, "auth");
  if (secret.length !== AUTH_SECRET_LENGTH) {
    throw invalid(`auth must be ${AUTH_SECRET_LENGTH} bytes`);
  }
  return { p256dh: point, auth: secret };
}

function decode(text: string, field: string): Uint8Array {
  if (typeof text !== "string") throw invalid(`${field} must be base64url`);
  const unpadded = text.replace(/={1,2}$/, "");
  const padding = text.length - unpadded.length;
  if (padding > 0 && (text.length % 4 !== 0 || padding !== (4 - (unpadded.length % 4)) % 4)) {
    throw invalid(`${field} must be base64url`);
  }
  try {
    return decodeBase64Url(unpadded);
  } catch (error) {
    if (error instanceof CanonicalError) throw invalid(`${field} must be base64url`);
    throw error;
  }
}

const invalid = (message: string) => new PushError("INVALID_SUBSCRIPTION", message);
