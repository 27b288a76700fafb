import { type BridgeKind, bridgeQueryParams, presenceQueryParams } from "@svc/protocol";
import type { Party } from "./party.js";

export interface QueryOptions {
  since?: number;
  signedAt?: number;
  /** Extra or replacing query parameters, sent as given (not signed). */
  extra?: Record<string, string>;
}

/** A signed bridge URL (D7), the way a client builds one; `base` may be "" for app.request. */
export function bridgeUrl(
  base: string,
  kind: BridgeKind,
  owner: Party,
  address: string,
  options: QueryOptions = {},
): string {
  const signedAt = options.signedAt ?? Date.now();
  const query = { address, kind, since: options.since, signedAt };
  const params = new URLSearchParams(bridgeQueryParams(query, (m) => owner.signer.sign(m)));
  for (const [name, value] of Object.entries(options.extra ?? {})) params.set(name, value);
  return `${base}/v1/bridge/${kind}?${params}`;
}

/** A signed presence URL: `watched` signed sorted, sent in the given order. */
export function presenceUrl(
  base: string,
  owner: Party,
  address: string,
  watched: string[],
  options: QueryOptions = {},
): string {
  const signedAt = options.signedAt ?? Date.now();
  const query = { address, watched, signedAt };
  const params = new URLSearchParams(presenceQueryParams(query, (m) => owner.signer.sign(m)));
  for (const [name, value] of Object.entries(options.extra ?? {})) params.set(name, value);
  return `${base}/v1/bridge/presence?${params}`;
}
