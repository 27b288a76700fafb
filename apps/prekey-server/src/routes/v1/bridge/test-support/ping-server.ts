import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { createTestStorage } from "@svc/db/testing";
import { Hono } from "hono";
import { toApiError } from "../../../../app.js";
import type { AppEnv } from "../../../../app-env.js";
import { routeUpgrades } from "../../../../bridge-ws.js";
import { createServices, type Services } from "../../../../services.js";
import { testConfig } from "../../../../test-support/app.js";
import { registerRelayRoutes } from "../../relay.js";
import type { BridgeRouteOptions } from "../index.js";

export interface BridgeTestServer {
  url: string;
  services: Services;
  stop(): Promise<void>;
}

/**
 * The inbox and bridge routes alone, with route options the app does not expose (a short ping
 * interval), on a listening server with the same upgrade hook as the real one.
 */
export async function startBridgeTestServer(
  options: BridgeRouteOptions,
): Promise<BridgeTestServer> {
  const storage = await createTestStorage();
  const services = createServices(testConfig(), storage);
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set("requestId", "bridge-test");
    await next();
  });
  await registerRelayRoutes(app, services, options);
  app.onError((error, c) => {
    const apiError = toApiError(error);
    return c.json(apiError.body(), apiError.status);
  });
  const server = await new Promise<Server>((resolve) => {
    const started = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () =>
      resolve(started as Server),
    ) as Server;
  });
  routeUpgrades(server, app.fetch);
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    services,
    async stop() {
      const closed = new Promise((resolve) => server.close(resolve));
      await services.close();
      server.closeAllConnections();
      await closed;
      await storage.close();
    },
  };
}
