import type { InboxStore } from "@svc/inbox";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { badRequest } from "../../../errors.js";
import { readJsonBody } from "../../../http/json-body.js";
import { parseBody } from "../../../http/signed-body.js";
import type { Services } from "../../../services.js";
import { authenticateRecipient, pathAddress } from "./recipient.js";
import { MSG_ID_PATTERN, SignedPayloadBody, SMALL_BODY_LIMIT } from "./schemas.js";

/** DELETE /v1/inbox/{address}/{msgId}: removes a queued blob; 404 once acked or expired. */
export function registerInboxAck(app: Hono<AppEnv>, services: Services, store: InboxStore) {
  app.delete("/v1/inbox/:address/:msgId", async (c) => {
    const body = await readJsonBody(c, SMALL_BODY_LIMIT);
    const address = pathAddress(c);
    const msgId = c.req.param("msgId");
    if (!MSG_ID_PATTERN.test(msgId)) throw badRequest("msgId must be 64 lower-hex digits");
    const request = parseBody(SignedPayloadBody, body);
    await authenticateRecipient(services, store, c, request, address);
    await store.ack(address, msgId);
    services.metrics.inboxAck.inc();
    return c.json({ ok: true });
  });
}
