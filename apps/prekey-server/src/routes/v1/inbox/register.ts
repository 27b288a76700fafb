import { normalizeAddress } from "@svc/canonical";
import { readJsonBody, requireFresh, signedBodyValid } from "@svc/http";
import type { InboxStore } from "@svc/inbox";
import {
  decodeSigningKey,
  InboxRegisterBody,
  parseRequest,
  ROUTES,
  routePattern,
  SMALL_BODY_LIMIT,
  SvcError,
} from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import type { Services } from "../../../services.js";
import { requireAddressMember } from "./recipient.js";

/**
 * POST /v1/inbox/register, signed by the key being bound. Checks: body (413, 400), signature
 * (401), freshness (409), then the binding: another key already bound is 401 SVC_WRONG_KEY.
 */
export function registerInboxRegister(app: Hono<AppEnv>, services: Services, store: InboxStore) {
  app.on(ROUTES.inboxRegister.method, routePattern(ROUTES.inboxRegister), async (c) => {
    const body = await readJsonBody(c, SMALL_BODY_LIMIT);
    const request = parseRequest(InboxRegisterBody, body);
    requireAddressMember(request.address, "address");
    const signingKey = decodeSigningKey(request.signingPublicKey, "signingPublicKey");
    if (!signedBodyValid(services.verifier, c, body, signingKey)) {
      throw new SvcError("SVC_BAD_SIGNATURE", "the signature does not verify");
    }
    requireFresh(request.signedAt, services.now(), "inbox");
    await store.register(normalizeAddress(request.address), signingKey);
    return c.json({ ok: true });
  });
}
