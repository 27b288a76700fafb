import { encodeBase64 } from "@svc/canonical";
import type { KtLog } from "@svc/kt-log";
import { ROUTES, routePattern } from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { treeSizeParam } from "./tree-size.js";

/**
 * GET /v1/kt/consistency?from&to: RFC 9162 consistency proof; `to` defaults to the latest size;
 * from = 0 or from = to gives an empty proof; from > to or to past the latest size is a 400.
 */
export function registerKtConsistency(app: Hono<AppEnv>, log: KtLog): void {
  app.on(ROUTES.ktConsistency.method, routePattern(ROUTES.ktConsistency), async (c) => {
    const from = treeSizeParam(c.req.query("from"), "from");
    const to = treeSizeParam(c.req.query("to"), "to", true);
    const { fromTreeSize, toTreeSize, proof } = await log.consistencyProof(from, to);
    return c.json({ fromTreeSize, toTreeSize, proof: proof.map(encodeBase64) });
  });
}
