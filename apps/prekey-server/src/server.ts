import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { type CreateAppOptions, createApp, type SvcApp } from "./app.js";
import { routeUpgrades } from "./bridge-ws.js";
import type { Config } from "./config.js";

export interface RunningServer {
  readonly svc: SvcApp;
  readonly url: string;
  readonly port: number;
  /** Stops accepting, ends open streams, closes the database. */
  stop(): Promise<void>;
}

/** Creates the app and listens on config.host:config.port (port 0 picks a free port). */
export async function startServer(
  config: Config,
  options: CreateAppOptions = {},
): Promise<RunningServer> {
  const svc = await createApp(config, options);
  const server = await new Promise<Server>((resolve) => {
    const started = serve({ fetch: svc.app.fetch, hostname: config.host, port: config.port }, () =>
      resolve(started as Server),
    ) as Server;
  });
  routeUpgrades(server, svc.app.fetch);
  svc.services.onClose(() => {
    server.closeIdleConnections();
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  let stopping: Promise<void> | undefined;
  return {
    svc,
    port,
    url: `http://${host}:${port}`,
    stop() {
      stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await svc.close();
        server.closeAllConnections();
        await closed;
      })();
      return stopping;
    },
  };
}
