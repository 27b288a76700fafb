import { createDeviceLists } from "@svc/devices";
import type { PrekeyDirectory } from "@svc/prekeys";
import type { Hono } from "hono";
import type { AppEnv } from "../../../app-env.js";
import type { Services } from "../../../services.js";
import { createDevicesRateLimits, type DevicesHooks, type DevicesRoutes } from "./context.js";
import { registerReadRoutes } from "./read.js";
import { registerWriteRoute } from "./write.js";

export type { DevicesHooks } from "./context.js";

/** The device list routes; `identities` is the prekey directory, `hooks` connect KT. */
export function registerDevicesRoutes(
  app: Hono<AppEnv>,
  services: Services,
  identities: Pick<PrekeyDirectory, "findIdentity">,
  hooks: DevicesHooks = {},
): void {
  const routes: DevicesRoutes = {
    services,
    lists: createDeviceLists(services.storage.db),
    identities,
    hooks,
    limits: createDevicesRateLimits(services),
  };
  registerReadRoutes(app, routes);
  registerWriteRoute(app, routes);
}
