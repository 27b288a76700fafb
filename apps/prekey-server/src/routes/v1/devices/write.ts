import { normalizeAddress } from "@svc/canonical";
import { clientIp, readJsonBody } from "@svc/http";
import {
  DeviceListError,
  DeviceListJson,
  deviceListFromJson,
  parseRequest,
  ROUTES,
  routePattern,
  SMALL_BODY_LIMIT,
  SvcError,
} from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import type { DevicesRoutes } from "./context.js";

/**
 * POST /v1/devices/{account}: the list's own signature authenticates it (by a device of the
 * version before, or the first device alone). Checks in order: per-IP limit (429), size (413),
 * JSON and schema (400), the account of the path (400), then the store's checks: the next
 * version (409 with currentVersion), the list's rules, signature and registered keys (400). The
 * answer waits for the version's leaf in the key-transparency log.
 */
export function registerWriteRoute(app: Hono<AppEnv>, routes: DevicesRoutes): void {
  const { services, lists, hooks, limits } = routes;
  const writes = services.metrics.deviceListWrites;
  const identityOf = async (address: string) => {
    const identity = await routes.identities.findIdentity(address);
    return identity?.identitySigningKey;
  };

  app.on(ROUTES.devicesWrite.method, routePattern(ROUTES.devicesWrite), async (c) => {
    limits.writePerIp.consume(clientIp(c, services.config.trustProxy));
    const account = normalizeAddress(c.req.param("account"));
    const body = await readJsonBody(c, SMALL_BODY_LIMIT);
    const fields = parseRequest(DeviceListJson, body);
    let written: { version: number; listHash: Uint8Array };
    try {
      const list = deviceListFromJson(fields);
      if (list.account !== account) {
        throw new SvcError("SVC_INVALID_DEVICE_LIST", "the list's account is not the path's");
      }
      await logLatestIfMissing(routes, account);
      written = await lists.write(list, {
        verifier: services.verifier,
        identityOf,
        now: services.now(),
      });
    } catch (error) {
      const refused =
        error instanceof DeviceListError
          ? new SvcError("SVC_INVALID_DEVICE_LIST", error.message)
          : error;
      if (refused instanceof SvcError) {
        writes
          .labels({ outcome: refused.code === "SVC_DEVICE_LIST_CONFLICT" ? "conflict" : "invalid" })
          .inc();
      }
      throw refused;
    }
    writes.labels({ outcome: "written" }).inc();
    await hooks.listWritten?.(account, written);
    return c.json({ ok: true, version: written.version });
  });
}

/**
 * A version stored whose leaf never reached the log (the process died between the two) is not
 * served (reads fall back to the version before), so no client could chain a version to it; any
 * write to the account logs it first. The log appends a version only when it shows no later one:
 * a version read here just before another writer's (on any instance) is logged is skipped, and
 * one whose own append is still under way is logged once.
 */
async function logLatestIfMissing(routes: DevicesRoutes, account: string): Promise<void> {
  const { lists, hooks } = routes;
  if (hooks.listProof === undefined || hooks.listWritten === undefined) return;
  const latest = await lists.latest(account);
  if (latest === undefined) return;
  if ((await hooks.listProof(account, latest.listHash)) !== undefined) return;
  await hooks.listWritten(account, { version: latest.list.version, listHash: latest.listHash });
}
