import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium; playwright-core brings no browser of its own. */
const CHROMIUM = "/usr/bin/chromium";

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

/**
 * Why the browser tests cannot run here, or undefined when they can. As in tooling/browser: a
 * missing Chromium skips them locally and fails them in CI (CI set, other than "0" or "false") or
 * with SVC_REQUIRE_BROWSER=1, where the launch throws.
 */
export function browserSkipReason(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const ci = env.CI;
  const required =
    (ci !== undefined && ci !== "" && ci !== "0" && ci !== "false") ||
    env.SVC_REQUIRE_BROWSER === "1";
  return required ? undefined : `${CHROMIUM} is not installed (apt-get install chromium)`;
}

/**
 * Headless Chromium; playwright gives it a fresh profile directory, deleted on close. Each
 * browser.newContext() is a separate identity: its own IndexedDB, kept across reloads.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}
