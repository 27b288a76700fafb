import { normalizeAddress } from "@svc/canonical";
import { readJsonBody, requireFresh, signedBodyValid } from "@svc/http";
import { requireSameIdentity, verifySignedPreKey } from "@svc/prekeys";
import {
  decodeKey,
  decodeOneTimePreKeys,
  decodeSignedPreKey,
  decodeSigningKey,
  KEYS_UPLOAD_BODY_LIMIT,
  KeysRegisterBody,
  parseRequest,
  ROUTES,
  routePattern,
} from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { badSignature, type KeysRoutes, requesterIp } from "./context.js";
import { decodeKemUpload, kemKeyHashOf, verifyKemUpload } from "./kem-upload.js";

/**
 * POST /v1/keys/register. Checks in order: per-IP limit (429), size (413), JSON and schema (400),
 * address and keys (400), identity keys against the stored ones (401), signature (401),
 * freshness (401), per-address limit (429), signed prekey (400), KEM prekey signatures (400),
 * prekey caps (400).
 */
export function registerRegisterRoute(app: Hono<AppEnv>, routes: KeysRoutes): void {
  const { services, directory, hooks, limits } = routes;

  app.on(ROUTES.keysRegister.method, routePattern(ROUTES.keysRegister), async (c) => {
    limits.registerPerIp.consume(requesterIp(routes, c));
    const body = await readJsonBody(c, KEYS_UPLOAD_BODY_LIMIT);
    const fields = parseRequest(KeysRegisterBody, body);
    const address = normalizeAddress(fields.address);
    const registration = {
      address,
      identitySigningKey: decodeSigningKey(fields.identitySigningKey, "identitySigningKey"),
      identityDHKey: decodeKey(fields.identityDHKey, 32, "identityDHKey"),
      signedPreKey: decodeSignedPreKey(fields.signedPreKey),
      oneTimePreKeys: decodeOneTimePreKeys(fields.oneTimePreKeys),
      ...decodeKemUpload(fields),
    };

    // First register: trust on first use of the body's key. Later: the stored keys must be named,
    // so the body's signing key is the stored one and the signature is checked with it.
    const stored = await directory.findIdentity(address);
    if (stored) requireSameIdentity(stored, registration);
    if (!signedBodyValid(services.verifier, c, body, registration.identitySigningKey))
      throw badSignature();
    requireFresh(fields.signedAt, services.now(), "other");
    limits.registerPerAddress.consume(address);
    verifySignedPreKey(
      services.verifier,
      registration.identitySigningKey,
      registration.signedPreKey,
    );

    verifyKemUpload(services.verifier, registration.identitySigningKey, registration);

    const { created, kemKeyChanged } = await directory.registerIdentity(
      registration,
      services.now(),
    );
    // A created identity's leaf commits its last-resort KEM key; setting or replacing that key
    // later is a change of the identity that the log records too.
    if (created || kemKeyChanged) {
      await hooks.identityChanged?.({
        address,
        kind: created ? "created" : "updated",
        identitySigningKey: registration.identitySigningKey,
        identityDHKey: registration.identityDHKey,
        ...kemKeyHashOf(registration.kemLastResortPreKey),
      });
    }
    return c.json({ ok: true });
  });
}
