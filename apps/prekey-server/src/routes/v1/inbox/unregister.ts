import type { InboxStore } from "@svc/inbox";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { ApiError } from "../../../errors.js";
import { readJsonBody } from "../../../http/json-body.js";
import { parseBody } from "../../../http/signed-body.js";
import type { Services } from "../../../services.js";
import { authenticateRecipient, pathAddress } from "./recipient.js";
import { SignedPayloadBody, SMALL_BODY_LIMIT } from "./schemas.js";

/** DELETE /v1/inbox/register/{address}: unbinds the address and drops its queued blobs. */
export function registerInboxUnregister(app: Hono<AppEnv>, services: Services, store: InboxStore) {
  app.delete("/v1/inbox/register/:address", async (c) => {
    const body = await readJsonBody(c, SMALL_BODY_LIMIT);
    const address = pathAddress(c);
    const request = parseBody(SignedPayloadBody, body);
    const boundKey = await authenticateRecipient(services, store, c, request, address);
    if (!(await store.unregister(address, boundKey))) {
      // Unbound (or rebound to another key) between the check and the delete.
      throw new ApiError(401, "SVC_WRONG_KEY", "the address has no inbox registration");
    }
    return c.json({ ok: true });
  });
}
