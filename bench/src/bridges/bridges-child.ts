import { mkdtemp } from "node:fs/promises";
import { createServer, get, type IncomingMessage, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, startServer } from "@svc/prekey-server";
import WebSocket from "ws";

/**
 * The processes of the bridge memory benchmark, forked by bridges.ts with an IPC channel:
 *   app-server [databaseUrl]   the prekey server (inbox on; on the embedded database unless
 *                given PostgreSQL's URL), reports its port
 *   bare-server  a bare node:http server holding every request open as an event stream
 *   sse-clients / ws-clients <url> <count> [localAddress]   opens and holds `count`
 *                connections, from `localAddress` when given (a loopback address of its own
 *                gives each client process its own ~28,000 ephemeral ports)
 * Servers answer an "rss" message with their resident set size after a full GC, taken with every
 * page of the (pinned) young generation written: as a server under load has it, whatever it did
 * since the last reading.
 */
type Role = "app-server" | "bare-server" | "sse-clients" | "ws-clients";

const [role, url, countText, localAddress] = process.argv.slice(2) as [
  Role,
  string?,
  string?,
  string?,
];
const send = (message: unknown) => process.send?.(message);

if (role === "app-server" || role === "bare-server") {
  const port = role === "app-server" ? await appServer(url) : await bareServer();
  process.on("message", (message) => {
    if (message !== "rss") return;
    fillYoungGeneration();
    globalThis.gc?.();
    globalThis.gc?.();
    setTimeout(() => send({ rss: process.memoryUsage().rss }), 200);
  });
  send({ port });
} else if (role === "sse-clients" || role === "ws-clients") {
  const opened = await openClients(role, url ?? "", Number(countText), localAddress);
  send({ opened });
}

/** Allocates short-lived objects through both semi-spaces several times over (~100 MiB). */
function fillYoungGeneration(): void {
  const ring: unknown[] = new Array(1024);
  for (let i = 0; i < 2_000_000; i++) ring[i % ring.length] = { i, pair: [i, i] };
}

async function appServer(databaseUrl: string | undefined): Promise<number> {
  const dataDir = await mkdtemp(join(tmpdir(), "svc-bench-bridges-"));
  const config = loadConfig({
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    SVC_PORT: "0",
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: "silent",
    SVC_KT: "off",
    SVC_RATE_LIMIT: "off",
  });
  return (await startServer(config)).port;
}

async function bareServer(): Promise<number> {
  const held: unknown[] = [];
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
    res.flushHeaders();
    held.push(req);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return typeof address === "object" && address ? address.port : 0;
}

/** Opens `count` connections, 100 at a time; resolves with how many reached 200 / open. */
async function openClients(
  kind: Role,
  target: string,
  count: number,
  localAddress: string | undefined,
): Promise<number> {
  // `ws` is a dependency of the server package, not of the benchmarks: load it from there.
  const held: unknown[] = [];
  let opened = 0;
  const openOne = () =>
    new Promise<void>((resolve) => {
      if (kind === "ws-clients") {
        const socket = new WebSocket(target.replace(/^http/, "ws"), { localAddress });
        socket.once("open", () => {
          opened++;
          resolve();
        });
        socket.once("error", () => resolve());
        held.push(socket);
        return;
      }
      const headers = { accept: "text/event-stream" };
      const req = get(target, { agent: false, headers, localAddress }, (res: IncomingMessage) => {
        if (res.statusCode === 200) opened++;
        res.on("data", () => {});
        resolve();
      });
      req.once("error", () => resolve());
      held.push(req);
    });
  for (let i = 0; i < count; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, count - i) }, openOne));
  }
  return opened;
}
