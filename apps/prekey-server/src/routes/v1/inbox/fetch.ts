import { readJsonBody } from "@svc/http";
import type { InboxStore } from "@svc/inbox";
import {
  FetchBody,
  LIMITS,
  parseRequest,
  ROUTES,
  routePattern,
  SMALL_BODY_LIMIT,
} from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import type { Services } from "../../../services.js";
import type { InboxHooks } from "./index.js";
import { authenticateRecipient, pathAddress } from "./recipient.js";

/**
 * POST /v1/inbox/{address}/fetch: up to `limit` unexpired blobs newer than `cursor`, oldest
 * first. The cursor is checked after authentication; a forged or foreign one is 400. A fetch
 * answers the address's earlier wake-ups: the next deposit may wake it at once.
 */
export function registerInboxFetch(
  app: Hono<AppEnv>,
  services: Services,
  store: InboxStore,
  hooks: InboxHooks,
) {
  app.on(ROUTES.inboxFetch.method, routePattern(ROUTES.inboxFetch), async (c) => {
    const body = await readJsonBody(c, SMALL_BODY_LIMIT);
    const address = pathAddress(c);
    const request = parseRequest(FetchBody, body);
    await authenticateRecipient(services, store, c, request, address);
    const page = await store.fetch(
      address,
      request.cursor ?? null,
      request.limit ?? LIMITS.fetchLimit.default,
    );
    services.metrics.inboxFetch.inc(page.items.length);
    await hooks.fetched?.(address);
    return c.json(page);
  });
}
