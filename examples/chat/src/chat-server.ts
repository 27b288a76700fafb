import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { loadConfig, type RunningServer, startServer } from "@svc/prekey-server";
import { build } from "esbuild";

/**
 * The page's sources, found from the package root so that this module works from src/ (tests)
 * and from dist/ (pnpm chat) alike.
 */
const PAGE_DIR = fileURLToPath(new URL("../src/page/", import.meta.url));

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
  const [html, script] = await Promise.all([
    readFile(`${PAGE_DIR}index.html`, "utf8"),
    bundlePage(`${PAGE_DIR}main.ts`),
  ]);
  const server = await startServer(loadConfig(env));
  mountPage(server, html, script);
  return { url: `${server.url}/`, stop: () => server.stop() };
}

/**
 * Adds the page's two routes. It runs in the same task as startServer's return, before any
 * request reaches the app: Hono's router accepts no route once it has matched one.
 */
function mountPage(server: RunningServer, html: string, script: string): void {
  const { app } = server.svc;
  app.get("/", (c) => c.html(html));
  app.get("/chat.js", (c) =>
    c.body(script, 200, { "Content-Type": "text/javascript; charset=utf-8" }),
  );
}

/** One ES module for browsers; workspace packages are bundled from their TypeScript sources. */
async function bundlePage(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["source"],
    sourcemap: "inline",
    logLevel: "silent",
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error(`esbuild wrote nothing for ${entry}`);
  return output.text;
}
