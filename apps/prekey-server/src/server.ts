import { bindPort } from "@svc/http";
import { type CreateAppOptions, createApp, type SvcApp } from "./app.js";
import type { Config } from "./config.js";

export interface RunningServer {
  readonly svc: SvcApp;
  readonly url: string;
  readonly port: number;
  /**
   * Stops accepting, ends open streams and background work, waits for the requests in flight to
   * be answered (at most 5 s), then closes the database.
   */
  stop(): Promise<void>;
}

/**
 * Takes config.host:config.port (port 0 picks a free port), then creates the app and serves it
 * there: a port in use ends the start before the data directory or the database is touched.
 */
export async function startServer(
  config: Config,
  options: CreateAppOptions = {},
): Promise<RunningServer> {
  const port = await bindPort(config.host, config.port, {
    ...config.http,
    settings: { port: "SVC_PORT", host: "SVC_HOST" },
  });
  let svc: SvcApp;
  try {
    svc = await createApp(config, options);
  } catch (error) {
    await port.close();
    throw error;
  }
  const server = port.serve(svc.app.fetch);
  let stopping: Promise<void> | undefined;
  return {
    svc,
    port: server.port,
    url: server.url,
    // Streams and background work end first; the database closes only after the requests in
    // flight have been answered, since they need it.
    stop() {
      stopping ??= server.stop(() => svc.services.close()).then(() => svc.close());
      return stopping;
    },
  };
}
