import { encodeBase64 } from "@svc/canonical";
import type { KtLog } from "@svc/kt-log";
import { ROUTES, routePattern } from "@svc/protocol";
import { ED25519_TYPE, formatVerifierKey } from "@svc/signed-note";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";

/**
 * GET /v1/kt/log_id: the operator public key and its SHA-256, the logId every STH names, the VRF
 * public key the index map's keys verify under, and the checkpoints' origin with the C2SP
 * verifier key of their signature (what a witness is configured with: `svc-kt witness --log`).
 */
export function registerKtLogId(app: Hono<AppEnv>, log: KtLog): void {
  const body = {
    logId: encodeBase64(log.logId),
    publicKey: encodeBase64(log.publicKey),
    vrfPublicKey: encodeBase64(log.vrfPublicKey),
    origin: log.origin,
    checkpointKey: formatVerifierKey(log.origin, log.publicKey, ED25519_TYPE),
  };
  app.on(ROUTES.ktLogId.method, routePattern(ROUTES.ktLogId), (c) => c.json(body));
}
