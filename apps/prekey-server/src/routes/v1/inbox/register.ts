import { normalizeAddress } from "@svc/canonical";
import type { InboxStore } from "@svc/inbox";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { ApiError } from "../../../errors.js";
import { readJsonBody } from "../../../http/json-body.js";
import { decodeKey, parseBody, requireFresh, signatureValid } from "../../../http/signed-body.js";
import type { Services } from "../../../services.js";
import { requireAddressMember } from "./recipient.js";
import { RegisterBody, SMALL_BODY_LIMIT } from "./schemas.js";

/**
 * POST /v1/inbox/register, signed by the key being bound. Checks: body (413, 400), signature
 * (401), freshness (409), then the binding: another key already bound is 401 SVC_WRONG_KEY.
 */
export function registerInboxRegister(app: Hono<AppEnv>, services: Services, store: InboxStore) {
  app.post("/v1/inbox/register", async (c) => {
    const body = await readJsonBody(c, SMALL_BODY_LIMIT);
    const request = parseBody(RegisterBody, body);
    requireAddressMember(request.address, "address");
    const signingKey = decodeKey(request.signingPublicKey, 32, "signingPublicKey");
    if (!signatureValid(services, c, body, signingKey)) {
      throw new ApiError(401, "SVC_BAD_SIGNATURE", "the signature does not verify");
    }
    requireFresh(services, request.signedAt, 409);
    await store.register(normalizeAddress(request.address), signingKey);
    return c.json({ ok: true });
  });
}
