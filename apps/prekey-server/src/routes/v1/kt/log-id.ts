import { encodeBase64 } from "@svc/canonical";
import type { KtLog } from "@svc/kt-log";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";

/**
 * GET /v1/kt/log_id: the operator public key and its SHA-256, the logId every STH names, and the
 * VRF public key the index map's keys verify under.
 */
export function registerKtLogId(app: Hono<AppEnv>, log: KtLog): void {
  const body = {
    logId: encodeBase64(log.logId),
    publicKey: encodeBase64(log.publicKey),
    vrfPublicKey: encodeBase64(log.vrfPublicKey),
  };
  app.get("/v1/kt/log_id", (c) => c.json(body));
}
