import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PAGE_ORIGIN } from "@svc/browser-harness";
import { build, transform } from "esbuild";
import type { Browser } from "playwright-core";
import { run } from "./consumer-project.js";

/** Longer than any example needs, well within the test's timeout. */
const EXAMPLE_TIMEOUT_MS = 60_000;

/**
 * Runs TypeScript `code` as an ES module of `project` (its imports resolve there, as a
 * consumer's do), in a fresh working directory; resolves to what it printed on stdout.
 */
export async function runOnNode(
  project: string,
  name: string,
  code: string,
  env: Record<string, string>,
): Promise<string> {
  const file = join(project, `${name}.mjs`);
  await writeFile(file, (await transform(code, { loader: "ts", format: "esm" })).code);
  const cwd = await mkdtemp(join(tmpdir(), "svc-example-"));
  try {
    const { stdout } = await run(process.execPath, [file], {
      cwd,
      env: { PATH: process.env.PATH, ...env },
      timeout: EXAMPLE_TIMEOUT_MS,
    });
    return stdout;
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}

/**
 * Bundles TypeScript `code` for browsers from `project`'s node_modules, without the workspace's
 * `source` condition: a Node built-in reached on the way is an error.
 */
export async function bundleForBrowser(project: string, code: string): Promise<string> {
  const result = await build({
    stdin: { contents: code, loader: "ts", resolveDir: project, sourcefile: "example.ts" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    logLevel: "silent",
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error("esbuild wrote nothing");
  return output.text;
}

/**
 * Loads `bundle` as a module of a page and resolves to the lines it logged once the module has
 * run; an error it throws, or a run past EXAMPLE_TIMEOUT_MS, rejects. With `server` the page is
 * that server's /health answer, so that Chromium's local network access checks let it reach
 * the server (WebSocket included) as a page the server served; else an empty page at
 * PAGE_ORIGIN, served from memory like the bundle.
 */
export async function runInPage(
  browser: Browser,
  bundle: string,
  server?: string,
): Promise<string> {
  const page = await browser.newPage();
  const logged: string[] = [];
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "log") logged.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  const origin = server ?? PAGE_ORIGIN;
  await page.route(`${origin}/__example.js`, (route) =>
    route.fulfill({ contentType: "text/javascript", body: bundle }),
  );
  if (server === undefined) {
    await page.route(`${origin}/`, (route) =>
      route.fulfill({ contentType: "text/html", body: '<!doctype html><meta charset="utf-8">' }),
    );
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the page ran for over ${EXAMPLE_TIMEOUT_MS} ms`)),
      EXAMPLE_TIMEOUT_MS,
    );
  });
  try {
    await page.goto(server === undefined ? `${origin}/` : `${server}/health`);
    // A string, so that vitest leaves this import() alone: it runs in the page.
    await Promise.race([page.evaluate(`import("/__example.js")`), timeout]);
  } finally {
    clearTimeout(timer);
    await page.close();
  }
  if (errors.length > 0) throw new Error(`the page threw: ${errors.join("; ")}`);
  return logged.map((line) => `${line}\n`).join("");
}
