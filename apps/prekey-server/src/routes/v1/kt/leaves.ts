import { encodeBase64 } from "@svc/canonical";
import type { KtLog } from "@svc/kt-log";
import { ROUTES, routePattern } from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { treeSizeParam } from "./tree-size.js";

/**
 * GET /v1/kt/leaves?start&end: the encoded leaves start..end-1 (end defaults to the latest size),
 * at most 1000 per answer, for monitors that replay the log. end past the latest size or
 * start > end is a 400.
 */
export function registerKtLeaves(app: Hono<AppEnv>, log: KtLog): void {
  app.on(ROUTES.ktLeaves.method, routePattern(ROUTES.ktLeaves), async (c) => {
    const start = treeSizeParam(c.req.query("start"), "start");
    const end = treeSizeParam(c.req.query("end"), "end", true);
    const page = await log.leaves(start, end);
    return c.json({ start: page.start, leaves: page.leaves.map(encodeBase64) });
  });
}
