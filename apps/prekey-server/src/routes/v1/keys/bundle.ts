import { normalizeAddress } from "@svc/canonical";
import { encodeBundle } from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { type KeysRoutes, notRegistered, requesterIp } from "./context.js";

/**
 * GET /v1/keys/bundle/{address}: anonymous; consumes the oldest one-time prekey. Checks in order:
 * per-IP limit (429), address (400), per-address limit (429), registration (404).
 */
export function registerBundleRoute(app: Hono<AppEnv>, routes: KeysRoutes): void {
  const { directory, hooks, limits } = routes;

  app.get("/v1/keys/bundle/:address", async (c) => {
    limits.bundlePerIp.consume(requesterIp(routes, c));
    const address = normalizeAddress(c.req.param("address"));
    limits.bundlePerAddress.consume(address);

    const bundle = await directory.fetchBundle(address);
    // Left out when no logged state shows the answer: an identity registered or deleted while key
    // transparency was off, or a change whose leaf is still being appended.
    const ktProof = await hooks.bundleProof?.(address, bundle);
    const proof = ktProof ? { ktProof } : {};
    if (!bundle) throw notRegistered(address, proof);
    return c.json({ ...encodeBundle(bundle), ...proof });
  });
}
