import { normalizeAddress } from "@svc/canonical";
import { clientIp } from "@svc/http";
import { deviceListToJson, parseSafeDecimal, ROUTES, routePattern, SvcError } from "@svc/protocol";
import type { Context, Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import type { DevicesRoutes } from "./context.js";

/**
 * GET /v1/devices/{account}: the latest version with a proof that the log holds it (404 with a
 * proof of absence for an account without a list); GET /v1/devices/{account}/versions/{version}:
 * an earlier version, without a proof (the client checks the chain up to the proven latest).
 */
export function registerReadRoutes(app: Hono<AppEnv>, routes: DevicesRoutes): void {
  const { lists, limits } = routes;
  const ip = (c: Context<AppEnv>) => clientIp(c, routes.services.config.trustProxy);

  app.on(ROUTES.devicesGet.method, routePattern(ROUTES.devicesGet), async (c) => {
    limits.readPerIp.consume(ip(c));
    const account = normalizeAddress(c.req.param("account"));
    const { latest, ktProof } = await provedLatest(routes, account);
    if (latest === undefined) {
      throw new SvcError("SVC_NO_DEVICE_LIST", `${account} has no device list`, {
        extra: ktProof ? { ktProof: ktProof.json } : {},
      });
    }
    return c.json({
      ...deviceListToJson(latest.list),
      ...(ktProof ? { ktProof: ktProof.json } : {}),
    });
  });

  app.on(ROUTES.devicesVersion.method, routePattern(ROUTES.devicesVersion), async (c) => {
    limits.readPerIp.consume(ip(c));
    const account = normalizeAddress(c.req.param("account"));
    const version = parseSafeDecimal(c.req.param("version"), "version");
    const stored = version >= 1 ? await lists.version(account, version) : undefined;
    if (stored === undefined) {
      throw new SvcError("SVC_NO_DEVICE_LIST", `${account} has no device list version ${version}`);
    }
    return c.json(deviceListToJson(stored.list));
  });
}

/**
 * The latest version the log shows, with its proof. A version stored but whose leaf is still being
 * appended (or whose append failed) is not served yet: the version before it is, or the absence
 * of a list for a version 1, so that a reader never gets a list the log does not prove.
 */
async function provedLatest(routes: DevicesRoutes, account: string) {
  const { lists, hooks } = routes;
  const stored = await lists.latest(account);
  if (hooks.listProof === undefined) return { latest: stored, ktProof: undefined };
  const ktProof = await hooks.listProof(account, stored?.listHash);
  if (stored === undefined || ktProof !== undefined) return { latest: stored, ktProof };
  const previous =
    stored.list.version > 1 ? await lists.version(account, stored.list.version - 1) : undefined;
  const shown = await hooks.listProof(account, previous?.listHash);
  // Neither: the log moved on meanwhile; the stored latest is served as it is, without a proof.
  return shown === undefined ? { latest: stored, ktProof } : { latest: previous, ktProof: shown };
}
