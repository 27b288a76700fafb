import { CanonicalError, decodeBase64, type Ed25519Verifier, isFresh } from "@svc/canonical";
import { signedBodyMessage, staleSignature } from "@svc/protocol";
import type { Context } from "hono";

/**
 * Checks a signed body's signature: Ed25519 over the canonical JSON of the body without
 * `signature`, plus `@method` and the request path exactly as sent. A signature that is not even
 * well-formed base64 counts as bad.
 */
export function signedBodyValid(
  verifier: Ed25519Verifier,
  c: Context,
  body: Record<string, unknown>,
  publicKey: Uint8Array,
): boolean {
  return signedBodyValidFor(verifier, { method: c.req.method, path: rawPath(c) }, body, publicKey);
}

/**
 * Whether `body` carries a valid signature for the request `method` and `path` name, which need
 * not be the request that brought it (each item of a batch is signed for its own route).
 */
export function signedBodyValidFor(
  verifier: Ed25519Verifier,
  request: { method: string; path: string },
  body: Record<string, unknown>,
  publicKey: Uint8Array,
): boolean {
  let signature: Uint8Array;
  try {
    signature = decodeBase64(String(body.signature), 64);
  } catch (error) {
    if (error instanceof CanonicalError) return false;
    throw error;
  }
  return verifier.verify(
    signature,
    signedBodyMessage(request.method, request.path, body),
    publicKey,
  );
}

/** Throws SVC_STALE_SIGNATURE unless signedAt is within +-5 minutes of `now`. */
export function requireFresh(signedAt: number, now: number, routes: "inbox" | "other"): void {
  if (!isFresh(signedAt, now)) throw staleSignature(routes);
}

/** The request path as sent by the client, without query and without percent-decoding. */
export function rawPath(c: Context): string {
  const url = c.req.url;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const query = url.indexOf("?", start);
  return url.slice(start, query === -1 ? undefined : query);
}
