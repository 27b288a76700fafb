import {
  type BridgeKind,
  bridgeQueryMessage,
  CanonicalError,
  decodeBase64,
  normalizeAddress,
  parseWatched,
  presenceQueryMessage,
} from "@svc/canonical";
import type { Context } from "hono";
import { ApiError, badRequest } from "../../../errors.js";
import { requireFresh } from "../../../http/signed-body.js";
import type { Services } from "../../../services.js";
import type { BridgeInbox } from "./inbox.js";

/** interface.md Limits: MAX_WATCHED_ADDRESSES. */
export const MAX_WATCHED_ADDRESSES = 64;
/** Decimal without leading zeros, at most 16 digits (every safe integer fits). */
const DECIMAL = /^(0|[1-9][0-9]{0,15})$/;

/** A parsed, not yet verified, signed query (D7). */
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
  const rawAddress = param(c, "address");
  const address = normalizeAddress(rawAddress);
  requireKind(c, kind);
  const sinceText = param(c, "since", false);
  const since = sinceText === undefined ? 0 : decimal(sinceText, "since");
  const signedAt = decimal(param(c, "signedAt"), "signedAt");
  const signature = signatureParam(c);
  const message = bridgeQueryMessage({ address: rawAddress, kind, since, signedAt });
  return { address, since, signedAt, signature, message };
}

/** Reads the query of the presence route; every problem is a 400. */
export function parsePresenceQuery(c: Context): PresenceQuery {
  const rawAddress = param(c, "address");
  const address = normalizeAddress(rawAddress);
  requireKind(c, "presence");
  const wire = param(c, "watched");
  if (wire !== "" && wire.split(",").length > MAX_WATCHED_ADDRESSES) {
    throw badRequest(
      `watched names more than ${MAX_WATCHED_ADDRESSES} addresses`,
      "SVC_TOO_MANY_WATCHED",
    );
  }
  const watched = parseWatched(wire);
  const signedAt = decimal(param(c, "signedAt"), "signedAt");
  const signature = signatureParam(c);
  const message = presenceQueryMessage({ address: rawAddress, watched, signedAt });
  return { address, watched, signedAt, signature, message };
}

/**
 * D7: the signature must verify with the key the address is bound to by inbox registration
 * (no registration: 401 like a wrong key, as on the inbox routes), then signedAt must be fresh.
 */
export async function verifySignedQuery(
  services: Services,
  inbox: BridgeInbox,
  query: SignedQuery,
): Promise<void> {
  const boundKey = await inbox.bindingKey(query.address);
  if (boundKey === undefined) {
    throw new ApiError(401, "SVC_WRONG_KEY", "the address has no inbox registration");
  }
  if (!services.verifier.verify(query.signature, query.message, boundKey)) {
    throw new ApiError(
      401,
      "SVC_BAD_SIGNATURE",
      "the signature does not verify with the bound key",
    );
  }
  requireFresh(services, query.signedAt, 401);
}

/** A query parameter that must appear at most once (exactly once when required). */
export function param(c: Context, name: string): string;
export function param(c: Context, name: string, required: false): string | undefined;
export function param(c: Context, name: string, required = true): string | undefined {
  const values = c.req.queries(name) ?? [];
  if (values.length > 1) throw badRequest(`${name} must be given once`);
  const [value] = values;
  if (value === undefined && required) throw badRequest(`${name} is required`);
  return value;
}

export function decimal(text: string, name: string): number {
  if (!DECIMAL.test(text)) throw badRequest(`${name} must be a non-negative decimal integer`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw badRequest(`${name} must be a safe integer`);
  return value;
}

function requireKind(c: Context, kind: string): void {
  if (param(c, "kind") !== kind) throw badRequest(`kind must be "${kind}" on this route`);
}

function signatureParam(c: Context): Uint8Array {
  try {
    return decodeBase64(param(c, "signature"), 64);
  } catch (error) {
    if (error instanceof CanonicalError) {
      throw badRequest("signature must be 64 bytes of base64 (percent-encoded)");
    }
    throw error;
  }
}
