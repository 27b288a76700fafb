import { normalizeAddress } from "@svc/canonical";
import { readJsonBody, requireFresh, signedBodyValid } from "@svc/http";
import { KEYS_BODY_LIMIT, KeysDeleteBody, parseRequest, ROUTES, routePattern } from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { badSignature, type KeysRoutes, notRegistered } from "./context.js";

/**
 * DELETE /v1/keys/{address}: removes identity, signed prekey and queue. Checks in order: size
 * (413), JSON and schema (400), path address (400), registration (404), signature with the stored
 * key over the path as sent (401), freshness (401).
 */
export function registerDeleteRoute(app: Hono<AppEnv>, routes: KeysRoutes): void {
  const { services, directory, hooks } = routes;

  app.on(ROUTES.keysDelete.method, routePattern(ROUTES.keysDelete), async (c) => {
    const body = await readJsonBody(c, KEYS_BODY_LIMIT);
    const fields = parseRequest(KeysDeleteBody, body);
    const address = normalizeAddress(c.req.param("address"));

    const stored = await directory.findIdentity(address);
    if (!stored) throw notRegistered(address);
    if (!signedBodyValid(services.verifier, c, body, stored.identitySigningKey))
      throw badSignature();
    requireFresh(fields.signedAt, services.now(), "other");

    const deleted = await directory.deleteIdentity(address, stored.identitySigningKey);
    await hooks.identityChanged?.({
      address,
      kind: "deleted",
      identitySigningKey: deleted.identitySigningKey,
      identityDHKey: deleted.identityDHKey,
    });
    return c.json({ ok: true });
  });
}
