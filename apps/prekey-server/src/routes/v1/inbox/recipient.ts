import { isValidAddress, normalizeAddress } from "@svc/canonical";
import { requireFresh, requireRecipientSignature, signedBodyValid } from "@svc/http";
import type { InboxStore } from "@svc/inbox";
import { SvcError } from "@svc/protocol";
import type { Context } from "hono";
import type { Services } from "../../../services.js";

/** The `:address` path parameter, NFKC-normalized; 400 SVC_INVALID_ADDRESS when invalid. */
export function pathAddress(c: Context): string {
  return normalizeAddress(c.req.param("address") ?? "");
}

/** A body member that must be an address (D2: 400 SVC_INVALID_ADDRESS, not a schema 400). */
export function requireAddressMember(value: string, field: string): void {
  if (!isValidAddress(value)) {
    throw new SvcError("SVC_INVALID_ADDRESS", `${field} does not match the address pattern`);
  }
}

/**
 * D6: fetch, ack and unregister are signed by the recipient's bound key. No registration means no
 * key to verify with: 401 like a wrong key. Then the signature (401), then freshness (409 on the
 * inbox's routes, 401 on others signed with the same key: `routes`).
 */
export async function authenticateRecipient(
  services: Services,
  store: Pick<InboxStore, "bindingKey">,
  c: Context,
  body: Record<string, unknown> & { signedAt: number },
  address: string,
  routes: "inbox" | "other" = "inbox",
): Promise<Uint8Array> {
  const boundKey = requireRecipientSignature(await store.bindingKey(address), (key) =>
    signedBodyValid(services.verifier, c, body, key),
  );
  requireFresh(body.signedAt, services.now(), routes);
  return boundKey;
}
