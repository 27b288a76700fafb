import type { Server, ServerResponse } from "node:http";
import { createAdaptorServer } from "@hono/node-server";
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

/** The settings that choose where a server listens, named when it cannot listen there. */
export interface ListenSettings {
  /** e.g. "SVC_PORT", "--port or SVC_TRANSFER_PORT". */
  port: string;
  /** e.g. "SVC_HOST". */
  host: string;
}

export interface BindOptions extends ServeOptions {
  settings?: ListenSettings;
}

/** A port taken before the server's state is opened; `serve` starts answering on it. */
export interface BoundPort {
  readonly url: string;
  readonly port: number;
  /** Answers with `fetch` from now on; the requests that came since the bind wait for it. */
  serve(fetch: Fetch): ListeningServer;
  /** Gives the port back: for a start that failed after the bind. */
  close(): Promise<void>;
}

/**
 * Takes host:port (port 0 picks a free port) before anything else starts, so that a port in use
 * ends the start at once, before a data directory, a database or a key is made. A port that
 * cannot be had rejects with a system error (`code` EADDRINUSE, EACCES, …) whose message names
 * the port and the setting that chooses it.
 */
export async function bindPort(
  host: string,
  port: number,
  options: BindOptions = {},
): Promise<BoundPort> {
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  let answer: Fetch | undefined;
  let ready = () => {};
  const served = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const server = createAdaptorServer({
    fetch: (request, env) =>
      answer ? answer(request, env) : served.then(() => (answer as Fetch)(request, env)),
    hostname: host,
    serverOptions: {
      headersTimeout,
      requestTimeout: Math.max(options.requestTimeoutMs ?? 60_000, headersTimeout),
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 5000,
      connectionsCheckingInterval: CHECK_INTERVAL_MS,
    },
  }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(cannotListen(error, host, port, options.settings)),
    );
    server.listen(port, host, () => resolve());
  });
  if (options.maxConnections !== undefined) server.maxConnections = options.maxConnections;
  const inFlight = trackRequests(server);
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${bound}`;
  let stopping: Promise<void> | undefined;
  const listening: ListeningServer = {
    port: bound,
    url,
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
  return {
    port: bound,
    url,
    serve(app) {
      answer = app;
      // The held requests go on after the caller's own continuation (which may add routes).
      setImmediate(ready);
      routeUpgrades(server, app);
      return listening;
    },
    close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      return closed;
    },
  };
}

/**
 * Serves `fetch` on host:port (port 0 picks a free port), WebSocket upgrades included: they go
 * through the app like any request, with the raw socket in `c.env.upgrade`.
 */
export async function listen(
  fetch: Fetch,
  host: string,
  port: number,
  options: BindOptions = {},
): Promise<ListeningServer> {
  return (await bindPort(host, port, options)).serve(fetch);
}

/** The system error of a failed bind, its message naming the port and what sets it. */
function cannotListen(
  error: NodeJS.ErrnoException,
  host: string,
  port: number,
  settings: ListenSettings | undefined,
): NodeJS.ErrnoException {
  const set = (what: keyof ListenSettings) => (settings ? ` (set ${settings[what]})` : "");
  const message =
    error.code === "EADDRINUSE"
      ? `port ${port} is in use${set("port")}`
      : error.code === "EACCES"
        ? `port ${port} needs privileges this process does not have${set("port")}`
        : error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND" || error.code === "EAI_AGAIN"
          ? `cannot listen on ${host}: not an address of this machine${set("host")}`
          : `cannot listen on ${host} port ${port}: ${error.message}${set("port")}`;
  return Object.assign(new Error(message, { cause: error }), { code: error.code ?? "EINVAL" });
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
