import { createPrekeyDirectory, type PrekeyDirectory } from "@svc/prekeys";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import type { Services } from "../../../services.js";
import { registerBundleRoute } from "./bundle.js";
import { createKeysRateLimits, type KeysHooks, type KeysRoutes } from "./context.js";
import { registerCountRoute } from "./count.js";
import { registerDeleteRoute } from "./delete.js";
import { registerRegisterRoute } from "./register.js";
import { registerReplenishRoute } from "./replenish.js";

export type { IdentityChange, KeysHooks, KtProofAnswer } from "./context.js";

/** The prekey directory routes (D5); `hooks` connect key transparency. Returns the directory. */
export function registerKeysRoutes(
  app: Hono<AppEnv>,
  services: Services,
  hooks: KeysHooks = {},
): PrekeyDirectory {
  const directory = createPrekeyDirectory(services.storage.db, {
    fetchConcurrency: services.storage.batchConcurrency,
  });
  services.metrics.kemPreKeysLeft.sampleWith(() => directory.countAllKemPrekeys());
  const routes: KeysRoutes = { services, directory, hooks, limits: createKeysRateLimits(services) };
  registerRegisterRoute(app, routes);
  registerBundleRoute(app, routes);
  registerCountRoute(app, routes);
  registerReplenishRoute(app, routes);
  registerDeleteRoute(app, routes);
  return directory;
}
