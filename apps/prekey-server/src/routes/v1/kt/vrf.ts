import { encodeBase64, normalizeAddress } from "@svc/canonical";
import { clientIp } from "@svc/http";
import type { KtLog } from "@svc/kt-log";
import { ROUTES, routePattern } from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import type { Services } from "../../../services.js";

/**
 * GET /v1/kt/vrf/{address}: the address's map key and its VRF proof, for monitors that watch an
 * address without fetching its bundle (which consumes a one-time prekey). Proving costs CPU, so
 * it is limited per IP at the bundle fetches' rate (429), then the address is checked (400).
 */
export function registerKtVrf(app: Hono<AppEnv>, services: Services, log: KtLog): void {
  const { config } = services;
  const perIp = services.rateLimit(
    "/v1/kt/vrf/:address",
    "vrf_per_ip",
    config.rateLimit.bundlePerIp,
  );
  app.on(ROUTES.ktVrf.method, routePattern(ROUTES.ktVrf), async (c) => {
    perIp.consume(clientIp(c, config.trustProxy));
    const address = normalizeAddress(c.req.param("address"));
    const { index, proof } = await log.vrfIndex(address);
    return c.json({ address, index: encodeBase64(index), vrfProof: encodeBase64(proof) });
  });
}
