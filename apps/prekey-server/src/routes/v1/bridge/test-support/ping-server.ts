import { createTestStorage } from "@svc/db/testing";
import { errorResponder, listen } from "@svc/http";
import { migrations } from "@svc/server-schema";
import { Hono } from "hono";
import type { AppEnv } from "../../../../app-env.js";
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
  const storage = await createTestStorage({ migrations });
  const services = createServices(testConfig(), storage);
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set("requestId", "bridge-test");
    await next();
  });
  await registerRelayRoutes(app, services, options);
  app.onError(errorResponder(services.logger));
  const server = await listen(app.fetch, "127.0.0.1", 0);
  return {
    url: server.url,
    services,
    async stop() {
      await server.stop(() => services.close());
      await storage.close();
    },
  };
}
