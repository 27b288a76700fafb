import { type KeyObject, sign } from "node:crypto";
import { encodeBase64Url } from "@svc/canonical";
import { REFUSAL } from "./endpoint-policy.js";
import { PushError } from "./errors.js";
import { p256PrivateKey } from "./p256.js";
import type { VapidKeys } from "./vapid-keys.js";

/** How long a JWT is good for: RFC 8292 section 2 allows at most 24 hours. */
export const VAPID_JWT_LIFETIME_S = 12 * 60 * 60;

const HEADER = encodeBase64Url(new TextEncoder().encode('{"typ":"JWT","alg":"ES256"}'));

/** A key pair's signing KeyObject, made once: building one costs more than a signature. */
const signingKeys = new WeakMap<VapidKeys, KeyObject>();

/**
 * The `Authorization` header of a Web Push request (RFC 8292 section 3):
 * `vapid t=<ES256 JWT>, k=<base64url public key>`, the JWT's claims `{aud, exp, sub?}` with aud
 * the endpoint's origin and exp 12 hours after it was signed: at `nowMs`, or up to an hour
 * before for the same keys, origin and subject.
 */
export function vapidAuthorization(
  endpoint: string,
  keys: VapidKeys,
  subject: string | undefined,
  nowMs: number,
): string {
  const signed = signedHeaders.get(keys) ?? new Map<string, SignedHeader>();
  signedHeaders.set(keys, signed);
  const audience = `${endpointOrigin(endpoint)}\n${subject ?? ""}`;
  const cached = signed.get(audience);
  if (cached !== undefined && nowMs >= cached.signedAtMs && nowMs - cached.signedAtMs < RESIGN_MS) {
    return cached.header;
  }
  const header = `vapid t=${vapidJwt(endpoint, keys, subject, nowMs)}, k=${encodeBase64Url(keys.publicKey)}`;
  signed.delete(audience);
  if (signed.size >= MAX_SIGNED_AUDIENCES) signed.delete(signed.keys().next().value as string);
  signed.set(audience, { header, signedAtMs: nowMs });
  return header;
}

/**
 * A header is used again for an hour: every push service's requests (one origin for all of its
 * subscriptions) then cost no signature, and the JWT still has 11 to 12 hours to run when sent.
 */
const RESIGN_MS = 60 * 60 * 1000;
/** Audiences (origin and subject) kept per key pair; past it the oldest is signed again later. */
const MAX_SIGNED_AUDIENCES = 1024;

interface SignedHeader {
  header: string;
  signedAtMs: number;
}

const signedHeaders = new WeakMap<VapidKeys, Map<string, SignedHeader>>();

/** The JWT alone; its first two parts are the signing input, fixed by its arguments. */
export function vapidJwt(
  endpoint: string,
  keys: VapidKeys,
  subject: string | undefined,
  nowMs: number,
): string {
  const claims: { aud: string; exp: number; sub?: string } = {
    aud: endpointOrigin(endpoint),
    exp: Math.floor(nowMs / 1000) + VAPID_JWT_LIFETIME_S,
  };
  if (subject !== undefined) claims.sub = subject;
  const input = `${HEADER}.${encodeBase64Url(new TextEncoder().encode(JSON.stringify(claims)))}`;
  const signature = sign("sha256", Buffer.from(input, "latin1"), {
    key: signingKey(keys),
    dsaEncoding: "ieee-p1363",
  });
  return `${input}.${encodeBase64Url(signature)}`;
}

function endpointOrigin(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    throw new PushError("ENDPOINT_REFUSED", REFUSAL.notUrl);
  }
}

function signingKey(keys: VapidKeys): KeyObject {
  let key = signingKeys.get(keys);
  if (key === undefined) {
    try {
      key = p256PrivateKey(keys.privateKey, keys.publicKey);
    } catch {
      throw new PushError("INVALID_VAPID_KEY", "the VAPID keys are not a P-256 key pair");
    }
    signingKeys.set(keys, key);
  }
  return key;
}
