import { normalizeAddress } from "@svc/canonical";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { bundleJson, type KeysRoutes, notRegistered, requesterIp } from "./context.js";

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
    const ktProof = await hooks.bundleProof?.(address, bundle !== undefined);
    const proof = ktProof ? { ktProof } : {};
    if (!bundle) throw notRegistered(address, proof);
    return c.json({ ...bundleJson(bundle), ...proof });
  });
}
