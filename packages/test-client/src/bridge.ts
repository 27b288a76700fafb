import { encodeBase64 } from "@svc/canonical";
import { type BridgeKind, bridgeQueryMessage, presenceQueryMessage } from "@svc/protocol";
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
  const message = bridgeQueryMessage({ address, kind, since: options.since, signedAt });
  const params = new URLSearchParams({ address, kind });
  if (options.since !== undefined) params.set("since", String(options.since));
  params.set("signedAt", String(signedAt));
  params.set("signature", encodeBase64(owner.signer.sign(message)));
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
  const message = presenceQueryMessage({ address, watched, signedAt });
  const params = new URLSearchParams({
    address,
    kind: "presence",
    watched: watched.join(","),
    signedAt: String(signedAt),
    signature: encodeBase64(owner.signer.sign(message)),
  });
  for (const [name, value] of Object.entries(options.extra ?? {})) params.set(name, value);
  return `${base}/v1/bridge/presence?${params}`;
}
