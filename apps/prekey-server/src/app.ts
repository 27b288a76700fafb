import { CanonicalError } from "@svc/canonical";
import { openStorage, type Storage } from "@svc/db";
import { InboxError } from "@svc/inbox";
import { KtLogError } from "@svc/kt-log";
import { PrekeyError } from "@svc/prekeys";
import { Hono } from "hono";
import { matchedRoutes } from "hono/route";
import type { AppEnv } from "./app-env.js";
import type { Config } from "./config.js";
import { ApiError } from "./errors.js";
import { registerObserverRoutes } from "./observer/routes.js";
import { registerOperationsRoutes } from "./routes/operations.js";
import { inboxApiError } from "./routes/v1/inbox/index.js";
import { registerKeysRoutes } from "./routes/v1/keys/index.js";
import { createKtHooks } from "./routes/v1/kt/hooks.js";
import { ktApiError, registerKtRoutes, startKtLog } from "./routes/v1/kt/index.js";
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

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export async function createApp(config: Config, options: CreateAppOptions = {}): Promise<SvcApp> {
  const storage =
    options.storage ??
    (await openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
  const services = createServices(config, storage, options);
  const app = new Hono<AppEnv>();

  app.use(async function observeRequest(c, next) {
    const started = performance.now();
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    c.set("requestId", requestId);
    // Set before the handler runs: setting a header on a finished response makes Hono copy it
    // into a new streamed Response, which costs more than the rest of a bundle fetch.
    c.header("X-Request-Id", requestId);
    await next();
    if (!c.res.headers.has("X-Request-Id")) c.header("X-Request-Id", requestId);
    const route = routePattern(c);
    services.metrics.requests.inc({ route, status: String(c.res.status) });
    services.logger.info("request", {
      requestId,
      method: c.req.method,
      route,
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
    });
  });

  registerOperationsRoutes(app, services);
  const ktLog = config.kt.enabled ? await startKtLog(services) : undefined;
  if (ktLog) registerKtRoutes(app, services, ktLog);
  registerKeysRoutes(app, services, ktLog ? createKtHooks(ktLog) : {});
  const hub = config.inbox.enabled ? await registerRelayRoutes(app, services) : undefined;
  if (!config.kt.enabled) app.all("/v1/kt/*", featureDisabled("key transparency"));
  if (!config.inbox.enabled) {
    app.all("/v1/inbox/*", featureDisabled("the inbox relay"));
    app.all("/v1/bridge/*", featureDisabled("the inbox relay"));
  }
  registerObserverRoutes(app, services, {
    kt: ktLog
      ? () =>
          ktLog.latestSth().then((sth) => ({ treeSize: sth.treeSize, lastSthAt: sth.timestampMs }))
      : undefined,
    bridges: hub ? () => hub.stats() : undefined,
  });

  app.notFound((c) => c.json(new ApiError(404, "SVC_NOT_FOUND", "no such route").body(), 404));
  app.onError((error, c) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500) {
      services.logger.error("unhandled error", {
        requestId: c.get("requestId"),
        ...describeError(error),
      });
    }
    return c.json(apiError.body(), apiError.status, apiError.headers);
  });

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
    throw new ApiError(404, "SVC_FEATURE_DISABLED", `${feature} is not enabled on this server`);
  };
}

function routePattern(c: Parameters<typeof matchedRoutes>[0]): string {
  const handlers = matchedRoutes(c).filter((route) => route.method !== "ALL");
  return handlers.at(-1)?.path ?? "unmatched";
}

/**
 * What an operator needs to act on a 500: the error's kind, its message and PostgreSQL's SQLSTATE.
 * Never the request, nor PostgreSQL's `detail`, which quotes row values.
 */
function describeError(error: unknown): Record<string, string> {
  if (!(error instanceof Error)) return { error: "unknown" };
  const described: Record<string, string> = { error: error.name, reason: error.message };
  const sqlState = (error as { code?: unknown }).code;
  if (typeof sqlState === "string") described.sqlState = sqlState;
  return described;
}

/** Maps anything a route threw to the ErrorResponse it answers with; never leaks internals. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof CanonicalError) {
    return error.code === "INVALID_ADDRESS"
      ? new ApiError(400, "SVC_INVALID_ADDRESS", error.message)
      : new ApiError(400, "SVC_BAD_REQUEST", error.message);
  }
  if (error instanceof InboxError) return inboxApiError(error);
  if (error instanceof KtLogError) return ktApiError(error);
  if (error instanceof PrekeyError) {
    const status =
      error.code === "SVC_IDENTITY_MISMATCH"
        ? 401
        : error.code === "SVC_NOT_REGISTERED"
          ? 404
          : 400;
    return new ApiError(status, error.code, error.message);
  }
  return new ApiError(500, "SVC_INTERNAL", "internal error");
}
