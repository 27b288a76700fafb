import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { bundleForBrowser } from "@svc/browser-harness";
import { loadConfig, type RunningServer, startServer } from "@svc/prekey-server";

/**
 * The page's sources, found from the package root so that this module works from src/ (tests)
 * and from dist/ (pnpm chat) alike.
 */
const PAGE_DIR = fileURLToPath(new URL("../src/page/", import.meta.url));
/** The service worker's sources (wake-ups: see src/worker/sw.ts). */
const WORKER = fileURLToPath(new URL("../src/worker/sw.ts", import.meta.url));

export interface ChatServer {
  /** Where the page is: open it in two browser windows, one per person. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * A prekey server (embedded database, KT and inbox on) that also serves the chat page, so the page
 * reaches the API, the SSE streams and the WebSocket bridge on its own origin. `env` is the
 * server's configuration (SVC_PORT, SVC_DATA_DIR, …; docs/configuration.md).
 */
export async function startChatServer(
  env: Record<string, string | undefined>,
): Promise<ChatServer> {
  const [html, script, worker] = await Promise.all([
    readFile(`${PAGE_DIR}index.html`, "utf8"),
    bundleForBrowser(`${PAGE_DIR}main.ts`).then((bundle) => bundle.code),
    bundleForBrowser(WORKER).then((bundle) => bundle.code),
  ]);
  const server = await startServer(loadConfig(env));
  mountPage(server, { html, script, worker });
  return { url: `${server.url}/`, stop: () => server.stop() };
}

/**
 * Adds the page's three routes: the page, its script, and its service worker at the root, so
 * that the worker's scope is the whole page. It runs in the same task as startServer's return, before any
 * request reaches the app: Hono's router accepts no route once it has matched one.
 */
function mountPage(
  server: RunningServer,
  files: { html: string; script: string; worker: string },
): void {
  const { app } = server.svc;
  const javascript = { "Content-Type": "text/javascript; charset=utf-8" };
  app.get("/", (c) => c.html(files.html));
  app.get("/chat.js", (c) => c.body(files.script, 200, javascript));
  // Checked for a new version on every registration, not kept from the HTTP cache.
  app.get("/sw.js", (c) =>
    c.body(files.worker, 200, { ...javascript, "Cache-Control": "no-cache" }),
  );
}
