import { ROUTES, routePattern } from "@svc/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "../app-env.js";
import { openApiText } from "../openapi/document.js";
import type { Services } from "../services.js";

const SERVICE = "svc-prekey-server";
/** Under the 2 s within which /health and /ready promise an answer, with room to send it. */
const PROBE_TIMEOUT_MS = 1500;

export function registerOperationsRoutes(app: Hono<AppEnv>, services: Services): void {
  const storageUp = () => withinTimeout(services.storage.ping().then(() => true));

  app.on(ROUTES.health.method, routePattern(ROUTES.health), async (c) => {
    const ok = await storageUp();
    return c.json({ status: ok ? "ok" : "error", service: SERVICE }, ok ? 200 : 503);
  });

  app.on(ROUTES.healthz.method, routePattern(ROUTES.healthz), (c) => c.json({ status: "ok" }));

  app.on(ROUTES.ready.method, routePattern(ROUTES.ready), async (c) => {
    const [storage, inbox, kt] = await Promise.all([
      storageUp(),
      probe(services.readiness.get("inbox")),
      probe(services.readiness.get("kt")),
    ]);
    const state = (up: boolean | undefined) =>
      up === undefined ? "disabled" : up ? "ok" : "error";
    const ready = storage && inbox !== false && kt !== false;
    return c.json(
      {
        status: ready ? "ok" : "error",
        checks: { storage: state(storage), inbox: state(inbox), kt: state(kt) },
      },
      ready ? 200 : 503,
    );
  });

  app.on(ROUTES.metrics.method, routePattern(ROUTES.metrics), async (c) => {
    const text = await services.metrics.registry.metrics();
    return c.text(text, 200, { "Content-Type": services.metrics.registry.contentType });
  });

  app.on(ROUTES.openApi.method, routePattern(ROUTES.openApi), (c) =>
    c.body(openApiText(), 200, { "Content-Type": "application/yaml; charset=utf-8" }),
  );
}

async function probe(check: (() => Promise<boolean>) | undefined): Promise<boolean | undefined> {
  return check ? withinTimeout(check()) : undefined;
}

/** A probe that does not answer in time counts as down (and must not hold /health open). */
function withinTimeout(work: Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
  });
  return Promise.race([work.catch(() => false), timeout]).finally(() => clearTimeout(timer));
}
