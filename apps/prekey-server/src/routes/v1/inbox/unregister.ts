import { readJsonBody } from "@svc/http";
import type { InboxStore } from "@svc/inbox";
import {
  parseRequest,
  ROUTES,
  routePattern,
  SignedPayloadBody,
  SMALL_BODY_LIMIT,
  SvcError,
} from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import type { Services } from "../../../services.js";
import type { InboxHooks } from "./index.js";
import { authenticateRecipient, pathAddress } from "./recipient.js";

/**
 * DELETE /v1/inbox/register/{address}: unbinds the address and drops its queued blobs (and its
 * push subscriptions).
 */
export function registerInboxUnregister(
  app: Hono<AppEnv>,
  services: Services,
  store: InboxStore,
  hooks: InboxHooks,
) {
  app.on(ROUTES.inboxUnregister.method, routePattern(ROUTES.inboxUnregister), async (c) => {
    const body = await readJsonBody(c, SMALL_BODY_LIMIT);
    const address = pathAddress(c);
    const request = parseRequest(SignedPayloadBody, body);
    const boundKey = await authenticateRecipient(services, store, c, request, address);
    if (!(await store.unregister(address, boundKey))) {
      // Unbound (or rebound to another key) between the check and the delete.
      throw new SvcError("SVC_WRONG_KEY", "the address has no inbox registration");
    }
    await hooks.unregistered?.(address);
    return c.json({ ok: true });
  });
}
