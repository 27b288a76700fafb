import { normalizeAddress } from "@svc/canonical";
import { encodeBundle, ROUTES, routePattern } from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { type KeysRoutes, notRegistered, requesterIp } from "./context.js";

const JSON_TYPE = { "content-type": "application/json" };
const CLOSING_BRACE = 0x7d;
const utf8 = new TextEncoder();

/**
 * GET /v1/keys/bundle/{address}: anonymous; consumes the oldest one-time prekey of each kind, and
 * serves the last-resort KEM key once no one-time KEM prekey is left. Checks in order: per-IP
 * limit (429), address (400), per-address limit (429), registration (404).
 */
export function registerBundleRoute(app: Hono<AppEnv>, routes: KeysRoutes): void {
  const { directory, hooks, limits } = routes;
  const served = routes.services.metrics.kemPreKeysServed;
  const servedOneTime = served.labels({ kind: "one_time" });
  const servedLastResort = served.labels({ kind: "last_resort" });

  app.on(ROUTES.keysBundle.method, routePattern(ROUTES.keysBundle), async (c) => {
    limits.bundlePerIp.consume(requesterIp(routes, c));
    const address = normalizeAddress(c.req.param("address"));
    limits.bundlePerAddress.consume(address);

    const bundle = await directory.fetchBundle(address);
    // Left out when no logged state shows the answer: an identity registered or deleted while key
    // transparency was off, or a change whose leaf is still being appended.
    const ktProof = await hooks.bundleProof?.(address, bundle);
    if (!bundle) throw notRegistered(address, ktProof ? { ktProof: ktProof.json } : {});
    if (bundle.kemPreKey) (bundle.kemPreKey.lastResort ? servedLastResort : servedOneTime).inc();
    const json = JSON.stringify(encodeBundle(bundle));
    if (!ktProof) return c.body(json, 200, JSON_TYPE);
    // The proof's bytes are kept between fetches: only the bundle's own members are encoded
    // here, and the answer is built outside the JavaScript heap, which each fetch would otherwise
    // grow by some 4 KB of strings to collect.
    const head = utf8.encode(`${json.slice(0, -1)},"ktProof":`);
    const answer = new Uint8Array(head.length + ktProof.bytes.length + 1);
    answer.set(head);
    answer.set(ktProof.bytes, head.length);
    answer[answer.length - 1] = CLOSING_BRACE;
    return c.body(answer, 200, JSON_TYPE);
  });
}
