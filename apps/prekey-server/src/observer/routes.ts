import { readFileSync } from "node:fs";
import { bearerToken, createWebEventStream, tokenMatches, type WebEventStream } from "@svc/http";
import { ROUTES, routePattern, SvcError } from "@svc/protocol";
import type { Context, Hono } from "hono";
import type { AppEnv } from "../app-env.js";
import type { ServerEventName } from "../events.js";
import type { Services } from "../services.js";
import { type ObserverSources, readSnapshot } from "./snapshot.js";

const FORWARDED_EVENTS: ServerEventName[] = [
  "inbox.peer_connected",
  "inbox.peer_disconnected",
  "kt.published",
  "ratelimit.rejected",
  "inbox.pruned",
];

export interface ObserverTimings {
  snapshotIntervalMs: number;
  pingIntervalMs: number;
}

const DEFAULT_TIMINGS: ObserverTimings = { snapshotIntervalMs: 5000, pingIntervalMs: 15_000 };

/**
 * The observer: a dashboard page, a snapshot API and a live event stream, all behind
 * SVC_OBSERVER_TOKEN. Without the token configured the routes do not exist (404).
 */
export function registerObserverRoutes(
  app: Hono<AppEnv>,
  services: Services,
  sources: ObserverSources,
  timings: ObserverTimings = DEFAULT_TIMINGS,
): void {
  const token = services.config.observerToken;
  if (!token) return;
  const dashboard = readFileSync(new URL("../../assets/observer.html", import.meta.url), "utf8");
  const openStreams = new Set<WebEventStream>();
  services.onClose(() => {
    for (const stream of openStreams) stream.close();
  });

  const requireToken = (c: Context, allowQuery: boolean) => {
    const presented =
      bearerToken(c.req.header("authorization")) ?? (allowQuery ? c.req.query("token") : undefined);
    if (!tokenMatches(token, presented)) {
      throw new SvcError("SVC_UNAUTHORIZED", "missing or invalid observer token", {
        headers: { "WWW-Authenticate": 'Bearer realm="svc-observer"' },
      });
    }
  };

  app.on(ROUTES.observerRedirect.method, routePattern(ROUTES.observerRedirect), (c) =>
    c.redirect("/svc-observer/", 301),
  );
  app.on(ROUTES.observerPage.method, routePattern(ROUTES.observerPage), (c) =>
    c.html(dashboard, 200, {
      "Content-Security-Policy":
        "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:",
      "Cache-Control": "no-store",
    }),
  );

  app.on(ROUTES.observerState.method, routePattern(ROUTES.observerState), async (c) => {
    requireToken(c, false);
    return c.json(await readSnapshot(services, sources), 200, { "Cache-Control": "no-store" });
  });

  app.on(ROUTES.observerEvents.method, routePattern(ROUTES.observerEvents), async (c) => {
    requireToken(c, true);
    const unsubscribers: Array<() => void> = [];
    const timers: NodeJS.Timeout[] = [];
    const stream = createWebEventStream(() => {
      for (const unsubscribe of unsubscribers) unsubscribe();
      for (const timer of timers) clearInterval(timer);
      openStreams.delete(stream);
    });
    openStreams.add(stream);
    const sendSnapshot = () =>
      readSnapshot(services, sources).then(
        (snapshot) => stream.event("snapshot", snapshot),
        () => stream.comment("snapshot unavailable"),
      );
    for (const name of FORWARDED_EVENTS) {
      unsubscribers.push(services.events.on(name, (payload) => stream.event(name, payload)));
    }
    timers.push(setInterval(sendSnapshot, timings.snapshotIntervalMs));
    timers.push(setInterval(() => stream.comment("ping"), timings.pingIntervalMs));
    await sendSnapshot();
    return stream.response;
  });
}
