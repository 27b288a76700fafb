import { canonicalize, encodeBase64, normalizeAddress } from "@svc/canonical";

export type BridgeKind = "stream" | "poll" | "ws";

export interface BridgeQuery {
  address: string;
  kind: BridgeKind;
  /** receivedAt cursor; absent means 0. */
  since?: number;
  signedAt: number;
}

export interface PresenceQuery {
  /** The watcher. */
  address: string;
  /** Normalized watched addresses, in any order. */
  watched: readonly string[];
  signedAt: number;
}

const BRIDGE_KINDS: ReadonlySet<string> = new Set(["stream", "poll", "ws"]);
const utf8 = new TextEncoder();

/** D7: the signed payload of the stream, poll and ws bridge routes. */
export function bridgeQueryMessage(query: BridgeQuery): Uint8Array {
  const { address, kind, since = 0, signedAt } = query;
  if (typeof address !== "string") throw new TypeError("address must be a string");
  if (!BRIDGE_KINDS.has(kind)) throw new RangeError("kind must be stream, poll or ws");
  return utf8.encode(canonicalize({ address, kind, since, signedAt }));
}

/** D7: the signed payload of the presence route; `watched` is signed sorted by code units. */
export function presenceQueryMessage(query: PresenceQuery): Uint8Array {
  const { address, watched, signedAt } = query;
  if (typeof address !== "string") throw new TypeError("address must be a string");
  if (!Array.isArray(watched)) throw new TypeError("watched must be an array of addresses");
  const sorted = [...watched].sort();
  return utf8.encode(canonicalize({ address, kind: "presence", watched: sorted, signedAt }));
}

/** Signs a query's payload: answers the 64-byte Ed25519 signature by the owner's signing key. */
export type QuerySigner = (message: Uint8Array) => Uint8Array;

/**
 * The URL parameters of a signed bridge query, in wire order: address, kind, since (when set),
 * signedAt, signature.
 */
export function bridgeQueryParams(query: BridgeQuery, sign: QuerySigner): Record<string, string> {
  const signature = encodeBase64(sign(bridgeQueryMessage(query)));
  const { address, kind, since, signedAt } = query;
  return {
    address,
    kind,
    ...(since === undefined ? {} : { since: String(since) }),
    signedAt: String(signedAt),
    signature,
  };
}

/** The URL parameters of a signed presence query: `watched` is signed sorted, sent as given. */
export function presenceQueryParams(
  query: PresenceQuery,
  sign: QuerySigner,
): Record<string, string> {
  const signature = encodeBase64(sign(presenceQueryMessage(query)));
  const { address, watched, signedAt } = query;
  return {
    address,
    kind: "presence",
    watched: watched.join(","),
    signedAt: String(signedAt),
    signature,
  };
}

/** The wire form of `watched`: comma-separated addresses, each normalized; "" is none. */
export function parseWatched(wire: string): string[] {
  if (typeof wire !== "string") throw new TypeError("wire must be a string");
  if (wire === "") return [];
  return wire.split(",").map(normalizeAddress);
}
