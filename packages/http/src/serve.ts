import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { routeUpgrades } from "./upgrade.js";

type Fetch = (request: Request, env: unknown) => Response | Promise<Response>;

export interface ListeningServer {
  readonly url: string;
  readonly port: number;
  /**
   * Stops accepting, runs `beforeClose` (end open streams, stop background work), then closes
   * every connection. Calling it again returns the same promise.
   */
  stop(beforeClose?: () => Promise<void>): Promise<void>;
}

/**
 * Serves `fetch` on host:port (port 0 picks a free port), WebSocket upgrades included: they go
 * through the app like any request, with the raw socket in `c.env.upgrade`.
 */
export async function listen(fetch: Fetch, host: string, port: number): Promise<ListeningServer> {
  const server = await new Promise<Server>((resolve) => {
    const started = serve({ fetch, hostname: host, port }, () => resolve(started as Server));
  });
  routeUpgrades(server, fetch);
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  let stopping: Promise<void> | undefined;
  return {
    port: bound,
    url: `http://${urlHost}:${bound}`,
    stop(beforeClose) {
      stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await beforeClose?.();
        server.closeAllConnections();
        await closed;
      })();
      return stopping;
    },
  };
}

/**
 * SIGTERM and SIGINT run `stop` once and exit 0 when it finishes, 1 when it fails or takes longer
 * than `deadlineMs`.
 */
export function stopOnSignals(
  stop: () => Promise<void>,
  onSignal: (signal: string) => void,
  deadlineMs = 10_000,
): void {
  const shutdown = (signal: string) => {
    onSignal(signal);
    setTimeout(() => process.exit(1), deadlineMs).unref();
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
}
