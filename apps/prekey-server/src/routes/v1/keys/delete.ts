import { normalizeAddress } from "@svc/canonical";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { readJsonBody } from "../../../http/json-body.js";
import { parseBody, requireFresh, signatureValid } from "../../../http/signed-body.js";
import { badSignature, type KeysRoutes, notRegistered } from "./context.js";
import { DeleteBody, KEYS_BODY_LIMIT } from "./schemas.js";

/**
 * DELETE /v1/keys/{address}: removes identity, signed prekey and queue. Checks in order: size
 * (413), JSON and schema (400), path address (400), registration (404), signature with the stored
 * key over the path as sent (401), freshness (401).
 */
export function registerDeleteRoute(app: Hono<AppEnv>, routes: KeysRoutes): void {
  const { services, directory, hooks } = routes;

  app.delete("/v1/keys/:address", async (c) => {
    const body = await readJsonBody(c, KEYS_BODY_LIMIT);
    const fields = parseBody(DeleteBody, body);
    const address = normalizeAddress(c.req.param("address"));

    const stored = await directory.findIdentity(address);
    if (!stored) throw notRegistered(address);
    if (!signatureValid(services, c, body, stored.identitySigningKey)) throw badSignature();
    requireFresh(services, fields.signedAt, 401);

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
