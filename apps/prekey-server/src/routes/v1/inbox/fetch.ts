import type { InboxStore } from "@svc/inbox";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { readJsonBody } from "../../../http/json-body.js";
import { parseBody } from "../../../http/signed-body.js";
import type { Services } from "../../../services.js";
import { authenticateRecipient, pathAddress } from "./recipient.js";
import { DEFAULT_FETCH_LIMIT, FetchBody, SMALL_BODY_LIMIT } from "./schemas.js";

/**
 * POST /v1/inbox/{address}/fetch: up to `limit` unexpired blobs newer than `cursor`, oldest
 * first. The cursor is checked after authentication; a forged or foreign one is 400.
 */
export function registerInboxFetch(app: Hono<AppEnv>, services: Services, store: InboxStore) {
  app.post("/v1/inbox/:address/fetch", async (c) => {
    const body = await readJsonBody(c, SMALL_BODY_LIMIT);
    const address = pathAddress(c);
    const request = parseBody(FetchBody, body);
    await authenticateRecipient(services, store, c, request, address);
    const page = await store.fetch(
      address,
      request.cursor ?? null,
      request.limit ?? DEFAULT_FETCH_LIMIT,
    );
    services.metrics.inboxFetch.inc(page.items.length);
    return c.json(page);
  });
}
