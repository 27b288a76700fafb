import {
  CanonicalError,
  decodeBase64,
  type Ed25519Verifier,
  normalizeAddress,
} from "@svc/canonical";
import {
  type BridgeKind,
  badRequest,
  bridgeQueryMessage,
  LIMITS,
  parseSafeDecimal,
  parseWatched,
  presenceQueryMessage,
  SvcError,
} from "@svc/protocol";
import type { Context } from "hono";
import { requireFresh } from "./signed-body.js";

/** A parsed, not yet verified, signed query. */
export interface SignedQuery {
  /** Normalized; the registration lookup and delivery use it. */
  address: string;
  signedAt: number;
  signature: Uint8Array;
  /** The exact bytes the client signed. */
  message: Uint8Array;
}

export interface BridgeQuery extends SignedQuery {
  since: number;
}

export interface PresenceQuery extends SignedQuery {
  /** Normalized, in the order sent (duplicates kept, as signed). */
  watched: string[];
}

/** Reads the query of a stream, poll or ws route; every problem is a 400. */
export function parseBridgeQuery(c: Context, kind: BridgeKind): BridgeQuery {
  const rawAddress = queryParam(c, "address");
  const address = normalizeAddress(rawAddress);
  requireKind(c, kind);
  const sinceText = queryParam(c, "since", false);
  const since = sinceText === undefined ? 0 : parseSafeDecimal(sinceText, "since");
  const signedAt = parseSafeDecimal(queryParam(c, "signedAt"), "signedAt");
  const signature = signatureParam(c);
  const message = bridgeQueryMessage({ address: rawAddress, kind, since, signedAt });
  return { address, since, signedAt, signature, message };
}

/** Reads the query of the presence route; every problem is a 400. */
export function parsePresenceQuery(c: Context): PresenceQuery {
  const rawAddress = queryParam(c, "address");
  const address = normalizeAddress(rawAddress);
  requireKind(c, "presence");
  const wire = queryParam(c, "watched");
  if (wire !== "" && wire.split(",").length > LIMITS.watchedAddresses) {
    throw badRequest(
      `watched names more than ${LIMITS.watchedAddresses} addresses`,
      "SVC_TOO_MANY_WATCHED",
    );
  }
  const watched = parseWatched(wire);
  const signedAt = parseSafeDecimal(queryParam(c, "signedAt"), "signedAt");
  const signature = signatureParam(c);
  const message = presenceQueryMessage({ address: rawAddress, watched, signedAt });
  return { address, watched, signedAt, signature, message };
}

/**
 * The signature must verify with the key the address is bound to by inbox registration (no
 * registration: 401 like a wrong key, as on the inbox routes), then signedAt must be fresh.
 */
export function verifySignedQuery(
  verifier: Ed25519Verifier,
  boundKey: Uint8Array | undefined,
  query: SignedQuery,
  now: number,
): void {
  requireRecipientSignature(boundKey, (key) =>
    verifier.verify(query.signature, query.message, key),
  );
  requireFresh(query.signedAt, now, "other");
}

/**
 * A recipient's request (inbox fetch, ack, unregister, bridges) is signed with the key its
 * address is bound to. No registration means no key to verify with: 401 like a wrong key.
 */
export function requireRecipientSignature(
  boundKey: Uint8Array | undefined,
  signatureValid: (boundKey: Uint8Array) => boolean,
): Uint8Array {
  if (boundKey === undefined) {
    throw new SvcError("SVC_WRONG_KEY", "the address has no inbox registration");
  }
  if (!signatureValid(boundKey)) {
    throw new SvcError("SVC_BAD_SIGNATURE", "the signature does not verify with the bound key");
  }
  return boundKey;
}

/** A query parameter that must appear at most once (exactly once when required). */
export function queryParam(c: Context, name: string): string;
export function queryParam(c: Context, name: string, required: false): string | undefined;
export function queryParam(c: Context, name: string, required = true): string | undefined {
  const values = c.req.queries(name) ?? [];
  if (values.length > 1) throw badRequest(`${name} must be given once`);
  const [value] = values;
  if (value === undefined && required) throw badRequest(`${name} is required`);
  return value;
}

function requireKind(c: Context, kind: string): void {
  if (queryParam(c, "kind") !== kind) throw badRequest(`kind must be "${kind}" on this route`);
}

function signatureParam(c: Context): Uint8Array {
  try {
    return decodeBase64(queryParam(c, "signature"), 64);
  } catch (error) {
    if (error instanceof CanonicalError) {
      throw badRequest("signature must be 64 bytes of base64 (percent-encoded)");
    }
    throw error;
  }
}
