import { encodeBase64 } from "@svc/canonical";
import { createSthSigner, KtLog } from "@svc/kt-log";
import { readCurrentIdentities } from "@svc/prekeys";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import { loadKtSigningSeed, loadKtVrfKey } from "../../../kt-key.js";
import type { Services } from "../../../services.js";
import { registerKtConsistency } from "./consistency.js";
import { registerKtLeaves } from "./leaves.js";
import { registerKtLogId } from "./log-id.js";
import { registerKtSth } from "./sth.js";
import { registerKtVrf } from "./vrf.js";

export { createKtHooks } from "./hooks.js";

/** How often an idle log checks whether its latest STH needs re-signing, and at what age. */
export const KT_REFRESH_CHECK_MS = 10 * 60_000;
export const KT_REFRESH_AGE_MS = 60 * 60_000;
/** How often witnesses that missed the latest checkpoint (or cosigned it an hour ago) get it again. */
export const KT_WITNESS_CHECK_MS = 30_000;

/**
 * Opens the key-transparency log on the app's database with the operator key (kt-key.ts), and
 * the directory's identities as the state each identity change must still be to be logged; wires
 * its STHs to the `svc_kt_publish_total` metric and the `kt.published` event, its readiness to
 * /ready, and re-signs the latest STH of an idle log every hour so clients never see it stale.
 */
export async function startKtLog(services: Services): Promise<KtLog> {
  const { config } = services;
  const seed = await loadKtSigningSeed(config);
  const vrfSecretKey = await loadKtVrfKey(config);
  const log = await KtLog.open({
    storage: services.storage,
    signer: createSthSigner(seed),
    vrfSecretKey,
    currentIdentities: readCurrentIdentities,
    now: services.now,
    ...(config.kt.origin === undefined ? {} : { origin: config.kt.origin }),
    witnesses: config.kt.witnesses,
    witnessTimeoutMs: config.kt.witnessTimeoutMs,
    onWitness(event) {
      services.metrics.ktWitness.inc({ witness: event.witness, outcome: event.outcome });
      if (event.outcome !== "cosigned") {
        services.logger.warn("kt witness did not cosign", { ...event });
      }
    },
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
  if (config.kt.witnesses.length > 0) startWitnessCatchUp(services, log);
  return log;
}

/**
 * Sends the latest checkpoint to witnesses that lack it, now (the log may have stopped between
 * a commit and its witnessing) and every KT_WITNESS_CHECK_MS.
 */
function startWitnessCatchUp(services: Services, log: KtLog): void {
  const catchUp = () => {
    log.witnessLatest(KT_REFRESH_AGE_MS).catch((error: unknown) => {
      services.logger.warn("kt witness catch-up failed", {
        error: error instanceof Error ? error.name : "unknown",
      });
    });
  };
  catchUp();
  const timer = setInterval(catchUp, KT_WITNESS_CHECK_MS);
  timer.unref();
  services.onClose(() => clearInterval(timer));
}

/** The read-only key-transparency routes (D8). */
export function registerKtRoutes(app: Hono<AppEnv>, services: Services, log: KtLog): void {
  registerKtLogId(app, log);
  registerKtSth(app, log);
  registerKtConsistency(app, log);
  registerKtLeaves(app, log);
  registerKtVrf(app, services, log);
  services.logger.debug("kt routes registered", {
    logId: encodeBase64(log.logId),
  });
}
