import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

/** Debian's Chromium; playwright-core brings no browser of its own. */
export const CHROMIUM = "/usr/bin/chromium";

/**
 * The origin of every page; requests to it are answered from memory, never the network. It is
 * localhost because only a secure context has crypto.subtle.
 */
export const PAGE_ORIGIN = "http://localhost";

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface ServedFile {
  contentType: string;
  body: string;
}

export interface ChromiumSession {
  /**
   * A new page at PAGE_ORIGIN whose requests are answered from `files`, keyed by path; "/" is
   * an empty HTML page unless given.
   */
  openPage(files: Record<string, ServedFile>): Promise<Page>;
  /** Closes the browser and deletes its profile directory. */
  close(): Promise<void>;
}

/**
 * Whether a missing Chromium fails the browser tests instead of skipping them: in CI (CI set,
 * other than "0" or "false") or with SVC_REQUIRE_BROWSER=1.
 */
export function browserRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI;
  return (
    (ci !== undefined && ci !== "" && ci !== "0" && ci !== "false") ||
    env.SVC_REQUIRE_BROWSER === "1"
  );
}

/**
 * Why the browser tests should skip here, or undefined when they run: a missing Chromium skips
 * them locally, while where it is required (browserRequired) they run and the launch fails.
 */
export function browserSkipReason(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return browserRequired(env) ? undefined : chromiumMissing();
}

/**
 * Headless Chromium for tests that load pages from a real server; playwright gives it a fresh
 * profile directory, deleted on close. Each browser.newContext() is a separate identity.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

/** Why Chromium cannot run here, or undefined when it can. */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM)
    ? undefined
    : `${CHROMIUM} is not installed (apt-get install chromium)`;
}

/** Headless Chromium with a fresh profile (--user-data-dir) of its own. */
export async function launchChromium(): Promise<ChromiumSession> {
  const missing = chromiumMissing();
  if (missing !== undefined) throw new Error(`Chromium unavailable: ${missing}`);
  const userDataDir = await mkdtemp(join(tmpdir(), "svc-chromium-"));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
    });
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    async openPage(files) {
      const page = await context.newPage();
      await page.route(`${PAGE_ORIGIN}/**`, (route) => {
        const { pathname } = new URL(route.request().url());
        const file = files[pathname] ?? (pathname === "/" ? EMPTY_PAGE : undefined);
        return file === undefined
          ? route.fulfill({ status: 404, contentType: "text/plain", body: "not found" })
          : route.fulfill({ status: 200, contentType: file.contentType, body: file.body });
      });
      await page.goto(`${PAGE_ORIGIN}/`);
      return page;
    },
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

const EMPTY_PAGE: ServedFile = {
  contentType: "text/html",
  body: '<!doctype html><meta charset="utf-8"><title>svc</title>',
};
