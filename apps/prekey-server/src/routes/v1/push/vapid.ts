import { clientIp } from "@svc/http";
import { ROUTES, routePattern } from "@svc/protocol";
import { vapidPublicKeyBase64Url } from "@svc/web-push";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import type { PushRoutes } from "./context.js";

/** GET /v1/push/vapid: the key a browser or distributor subscribes with (applicationServerKey). */
export function registerVapidRoute(app: Hono<AppEnv>, routes: PushRoutes): void {
  const { services, limits } = routes;
  const publicKey = vapidPublicKeyBase64Url(routes.vapid);
  app.on(ROUTES.pushVapid.method, routePattern(ROUTES.pushVapid), (c) => {
    limits.vapidPerIp.consume(clientIp(c, services.config.trustProxy));
    return c.json({ publicKey });
  });
}
