import { normalizeAddress } from "@svc/canonical";
import { readJsonBody, requireFresh, signedBodyValid } from "@svc/http";
import {
  decodeOneTimePreKeys,
  KEYS_UPLOAD_BODY_LIMIT,
  KeysReplenishBody,
  parseRequest,
  ROUTES,
  routePattern,
} from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { badSignature, type KeysRoutes, notRegistered } from "./context.js";
import { decodeKemUpload, kemKeyHashOf, verifyKemUpload } from "./kem-upload.js";

/**
 * POST /v1/keys/replenish: appends one-time prekeys of either kind and sets or replaces the
 * last-resort KEM key. Checks in order: size (413), JSON and schema (400), address and keys (400),
 * registration (404), signature with the stored key (401), freshness (401), per-address limit
 * (429), KEM prekey signatures (400), prekey caps (400).
 */
export function registerReplenishRoute(app: Hono<AppEnv>, routes: KeysRoutes): void {
  const { services, directory, hooks, limits } = routes;

  app.on(ROUTES.keysReplenish.method, routePattern(ROUTES.keysReplenish), async (c) => {
    const body = await readJsonBody(c, KEYS_UPLOAD_BODY_LIMIT);
    const fields = parseRequest(KeysReplenishBody, body);
    const address = normalizeAddress(fields.address);
    const upload = {
      oneTimePreKeys: decodeOneTimePreKeys(fields.oneTimePreKeys),
      ...decodeKemUpload(fields),
    };

    const stored = await directory.findIdentity(address);
    if (!stored) throw notRegistered(address);
    if (!signedBodyValid(services.verifier, c, body, stored.identitySigningKey))
      throw badSignature();
    requireFresh(fields.signedAt, services.now(), "other");
    limits.replenishPerAddress.consume(address);

    verifyKemUpload(services.verifier, stored.identitySigningKey, upload);

    const { remaining, kemRemaining, kemKeyChanged } = await directory.replenish(
      address,
      stored.identitySigningKey,
      upload,
      services.now(),
    );
    if (kemKeyChanged) {
      await hooks.identityChanged?.({
        address,
        kind: "updated",
        identitySigningKey: stored.identitySigningKey,
        identityDHKey: stored.identityDHKey,
        ...kemKeyHashOf(upload.kemLastResortPreKey),
      });
    }
    return c.json({ ok: true, remaining, kemRemaining });
  });
}
