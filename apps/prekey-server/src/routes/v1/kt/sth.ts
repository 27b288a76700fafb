import type { KtLog } from "@svc/kt-log";
import { sthToJson } from "@svc/kt-verify";
import { ROUTES, routePattern } from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { treeSizeParam } from "./tree-size.js";

/**
 * GET /v1/kt/sth (latest), GET /v1/kt/sth/{treeSize} (404 SVC_STH_NOT_FOUND past the log), and
 * GET /v1/kt/checkpoint: the latest tree head as a C2SP checkpoint note, operator-signed, with the
 * witnesses' cosignatures of its size.
 */
export function registerKtSth(app: Hono<AppEnv>, log: KtLog): void {
  app.on(ROUTES.ktSth.method, routePattern(ROUTES.ktSth), async (c) =>
    c.json(sthToJson(await log.latestSth())),
  );

  app.on(ROUTES.ktSthAt.method, routePattern(ROUTES.ktSthAt), async (c) => {
    const treeSize = treeSizeParam(c.req.param("treeSize"), "treeSize");
    return c.json(sthToJson(await log.sthAt(treeSize)));
  });

  app.on(ROUTES.ktCheckpoint.method, routePattern(ROUTES.ktCheckpoint), async (c) => {
    const note = await log.checkpointFor(await log.latestSth());
    return c.body(note, 200, { "content-type": "text/plain; charset=utf-8" });
  });
}
