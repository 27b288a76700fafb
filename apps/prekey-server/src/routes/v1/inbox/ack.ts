import { readJsonBody } from "@svc/http";
import type { InboxStore } from "@svc/inbox";
import {
  badRequest,
  MSG_ID_PATTERN,
  parseRequest,
  ROUTES,
  routePattern,
  SignedPayloadBody,
  SMALL_BODY_LIMIT,
} from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import type { Services } from "../../../services.js";
import { authenticateRecipient, pathAddress } from "./recipient.js";

/** DELETE /v1/inbox/{address}/{msgId}: removes a queued blob; 404 once acked or expired. */
export function registerInboxAck(app: Hono<AppEnv>, services: Services, store: InboxStore) {
  app.on(ROUTES.inboxAck.method, routePattern(ROUTES.inboxAck), async (c) => {
    const body = await readJsonBody(c, SMALL_BODY_LIMIT);
    const address = pathAddress(c);
    const msgId = c.req.param("msgId");
    if (!MSG_ID_PATTERN.test(msgId)) throw badRequest("msgId must be 64 lower-hex digits");
    const request = parseRequest(SignedPayloadBody, body);
    await authenticateRecipient(services, store, c, request, address);
    await store.ack(address, msgId);
    services.metrics.inboxAck.inc();
    return c.json({ ok: true });
  });
}
