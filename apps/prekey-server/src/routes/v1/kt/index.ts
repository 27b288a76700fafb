import { encodeBase64 } from "@svc/canonical";
import { createSthSigner, KtLog } from "@svc/kt-log";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { loadKtSigningSeed } from "../../../kt-key.js";
import type { Services } from "../../../services.js";
import { registerKtConsistency } from "./consistency.js";
import { registerKtLeaves } from "./leaves.js";
import { registerKtLogId } from "./log-id.js";
import { registerKtSth } from "./sth.js";

export { createKtHooks } from "./hooks.js";

/** How often an idle log checks whether its latest STH needs re-signing, and at what age. */
export const KT_REFRESH_CHECK_MS = 10 * 60_000;
export const KT_REFRESH_AGE_MS = 60 * 60_000;

/**
 * Opens the key-transparency log on the app's database with the operator key (kt-key.ts), wires
 * its STHs to the `svc_kt_publish_total` metric and the `kt.published` event, its readiness to
 * /ready, and re-signs the latest STH of an idle log every hour so clients never see it stale.
 */
export async function startKtLog(services: Services): Promise<KtLog> {
  const seed = await loadKtSigningSeed(services.config);
  const log = await KtLog.open({
    storage: services.storage,
    signer: createSthSigner(seed),
    now: services.now,
    onPublish(sth) {
      services.metrics.ktPublish.inc();
      services.events.emit("kt.published", { treeSize: sth.treeSize, at: services.now() });
    },
  });
  services.readiness.set("kt", async () => {
    await log.latestSth();
    return true;
  });
  const timer = setInterval(() => {
    log.refresh(KT_REFRESH_AGE_MS).catch((error: unknown) => {
      services.logger.warn("kt refresh failed", {
        error: error instanceof Error ? error.name : "unknown",
      });
    });
  }, KT_REFRESH_CHECK_MS);
  timer.unref();
  services.onClose(() => clearInterval(timer));
  return log;
}

/** The read-only key-transparency routes (D8). */
export function registerKtRoutes(app: Hono<AppEnv>, services: Services, log: KtLog): void {
  registerKtLogId(app, log);
  registerKtSth(app, log);
  registerKtConsistency(app, log);
  registerKtLeaves(app, log);
  services.logger.debug("kt routes registered", {
    logId: encodeBase64(log.logId),
  });
}
