import { isDatabaseUnreachable, openStorage, type Storage } from "@svc/db";
import { errorResponder, observeRequests, routeNotFound } from "@svc/http";
import { ROUTES, SvcError } from "@svc/protocol";
import { migrations } from "@svc/server-schema";
import { Hono } from "hono";
import type { AppEnv } from "./app-env.js";
import type { Config } from "./config.js";
import { registerObserverRoutes } from "./observer/routes.js";
import { registerOperationsRoutes } from "./routes/operations.js";
import { registerDevicesRoutes } from "./routes/v1/devices/index.js";
import { registerKeysRoutes } from "./routes/v1/keys/index.js";
import { createDeviceKtHooks, createKtHooks } from "./routes/v1/kt/hooks.js";
import { registerKtRoutes, startKtLog } from "./routes/v1/kt/index.js";
import { registerRelayRoutes } from "./routes/v1/relay.js";
import { createServices, type ServiceOptions, type Services } from "./services.js";

export interface SvcApp {
  readonly app: Hono<AppEnv>;
  readonly services: Services;
  /** Stops background work, ends open streams and closes the storage it opened. */
  close(): Promise<void>;
}

export interface CreateAppOptions extends ServiceOptions {
  /** Use this storage instead of opening one from the configuration (it is not closed). */
  storage?: Storage;
}

export async function createApp(config: Config, options: CreateAppOptions = {}): Promise<SvcApp> {
  const storage =
    options.storage ??
    (await openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, migrations }));
  const services = createServices(config, storage, options);
  const app = new Hono<AppEnv>();

  app.use(observeRequests(services.metrics, services.logger));

  registerOperationsRoutes(app, services);
  const ktLog = config.kt.enabled ? await startKtLog(services) : undefined;
  if (ktLog) registerKtRoutes(app, services, ktLog);
  const directory = registerKeysRoutes(app, services, ktLog ? createKtHooks(ktLog) : {});
  registerDevicesRoutes(app, services, directory, ktLog ? createDeviceKtHooks(ktLog) : {});
  const hub = config.inbox.enabled ? await registerRelayRoutes(app, services) : undefined;
  if (!config.kt.enabled) app.all("/v1/kt/*", featureDisabled("key transparency"));
  if (!config.inbox.enabled) {
    app.all("/v1/inbox/*", featureDisabled("the inbox relay"));
    app.all(ROUTES.inboxDepositBatch.path, featureDisabled("the inbox relay"));
    app.all("/v1/bridge/*", featureDisabled("the inbox relay"));
  }
  if (!config.inbox.enabled) app.all("/v1/push/*", featureDisabled("the inbox relay"));
  else if (!config.push.enabled) app.all("/v1/push/*", featureDisabled("Web Push wake-ups"));
  registerObserverRoutes(app, services, {
    kt: ktLog
      ? () =>
          ktLog.latestSth().then((sth) => ({ treeSize: sth.treeSize, lastSthAt: sth.timestampMs }))
      : undefined,
    bridges: hub ? () => hub.stats() : undefined,
  });

  app.notFound(routeNotFound);
  const respondWithError = errorResponder(services.logger);
  app.onError((error, c) => respondWithError(unavailableWhenUnreachable(error), c));

  return {
    app,
    services,
    async close() {
      await services.close();
      if (!options.storage) await storage.close();
    },
  };
}

function featureDisabled(feature: string) {
  return function featureDisabled(): never {
    throw new SvcError("SVC_FEATURE_DISABLED", `${feature} is not enabled on this server`);
  };
}

/**
 * A request that failed because the database could not be reached is 503 SVC_UNAVAILABLE: it may
 * succeed when retried, unlike a 500.
 */
function unavailableWhenUnreachable(error: unknown): unknown {
  if (error instanceof SvcError || !isDatabaseUnreachable(error)) return error;
  return new SvcError("SVC_UNAVAILABLE", "the database is not reachable", { cause: error });
}
