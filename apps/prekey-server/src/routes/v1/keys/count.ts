import { normalizeAddress } from "@svc/canonical";
import { ROUTES, routePattern } from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import type { KeysRoutes } from "./context.js";

/**
 * GET /v1/keys/count/{address}: anonymous; the one-time prekeys queued of each kind (the
 * last-resort KEM key not counted), `{count: 0, kemCount: 0}` for an unregistered address.
 */
export function registerCountRoute(app: Hono<AppEnv>, routes: KeysRoutes): void {
  app.on(ROUTES.keysCount.method, routePattern(ROUTES.keysCount), async (c) => {
    const address = normalizeAddress(c.req.param("address"));
    const { count, kemCount } = await routes.directory.countPrekeys(address);
    return c.json({ count, kemCount });
  });
}
