import type { Server, ServerResponse } from "node:http";
import { serve } from "@hono/node-server";
import { routeUpgrades } from "./upgrade.js";

type Fetch = (request: Request, env: unknown) => Response | Promise<Response>;

/** Limits against slow and idle clients (node:http's own are 60 s and 300 s, checked every 30 s). */
export interface ServeOptions {
  /** A request's head (request line and headers) must be complete within this. Default 10 s. */
  headersTimeoutMs?: number;
  /** A request (headers and body) must have arrived within this. Default 60 s. */
  requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this. Default 5 s. */
  keepAliveTimeoutMs?: number;
  /** Connections beyond this many are closed as they arrive; unset: no limit. */
  maxConnections?: number | undefined;
  /** How long `stop` waits for the requests in flight to be answered. Default 5 s. */
  drainMs?: number;
}

export interface ListeningServer {
  readonly url: string;
  readonly port: number;
  /**
   * Stops accepting, runs `beforeClose` (end open streams, stop background work), waits for the
   * requests in flight to be answered (at most `drainMs`), then closes every connection. Calling
   * it again returns the same promise.
   */
  stop(beforeClose?: () => Promise<void>): Promise<void>;
}

/** How often node:http looks for connections past their headers or request deadline. */
const CHECK_INTERVAL_MS = 1000;

/**
 * Serves `fetch` on host:port (port 0 picks a free port), WebSocket upgrades included: they go
 * through the app like any request, with the raw socket in `c.env.upgrade`.
 */
export async function listen(
  fetch: Fetch,
  host: string,
  port: number,
  options: ServeOptions = {},
): Promise<ListeningServer> {
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const server = await new Promise<Server>((resolve) => {
    const started = serve(
      {
        fetch,
        hostname: host,
        port,
        serverOptions: {
          headersTimeout,
          requestTimeout: Math.max(options.requestTimeoutMs ?? 60_000, headersTimeout),
          keepAliveTimeout: options.keepAliveTimeoutMs ?? 5000,
          connectionsCheckingInterval: CHECK_INTERVAL_MS,
        },
      },
      () => resolve(started as Server),
    );
  });
  if (options.maxConnections !== undefined) server.maxConnections = options.maxConnections;
  const inFlight = trackRequests(server);
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
        inFlight.closing();
        await beforeClose?.();
        await inFlight.drained(options.drainMs ?? 5000);
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

/**
 * The responses not yet finished. Once the server is closing, each is sent with
 * `Connection: close`, so that its client does not send another request on that connection.
 */
function trackRequests(server: Server) {
  const open = new Set<ServerResponse>();
  let closing = false;
  let onEmpty: (() => void) | undefined;
  const forget = (res: ServerResponse) => {
    open.delete(res);
    if (open.size === 0) onEmpty?.();
  };
  const noMoreOn = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader("Connection", "close");
  };
  server.on("request", (_req, res: ServerResponse) => {
    open.add(res);
    if (closing) noMoreOn(res);
    res.once("close", () => forget(res));
  });
  return {
    closing() {
      closing = true;
      for (const res of open) noMoreOn(res);
    },
    drained(withinMs: number): Promise<void> {
      if (open.size === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, withinMs);
        timer.unref();
        onEmpty = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
  };
}
