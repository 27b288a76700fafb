import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";

/** Registering an identity, a KT check or a delivery may take seconds on a busy machine. */
export const POLL = { timeout: 20_000 };
/** A reconnect waits out the subscription's backoff (up to 30 s) after an outage. */
export const RECONNECT_POLL = { timeout: 60_000 };

/** Screenshots of each key step, for a person to look at (gitignored). */
export const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/", import.meta.url));

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
}

export interface OpenOptions {
  context?: BrowserContext;
  withoutWebSocket?: boolean;
  viewport?: { width: number; height: number };
}

/** A fresh page of `url`, in a new browser context (a browser of its own) by default. */
export async function newChatPage(
  browser: Browser,
  url: string,
  options: OpenOptions = {},
): Promise<Page> {
  const context =
    options.context ??
    (await browser.newContext(options.viewport ? { viewport: options.viewport } : {}));
  const page = await context.newPage();
  if (options.withoutWebSocket) {
    await page.addInitScript(() => {
      Reflect.deleteProperty(globalThis, "WebSocket");
    });
  }
  await page.goto(url);
  return page;
}

/** A page started as a new account's device `address` ("New account", then Start). */
export async function openChat(
  browser: Browser,
  url: string,
  address: string,
  options: OpenOptions = {},
): Promise<Page> {
  const page = await newChatPage(browser, url, options);
  await page.fill("#address", address);
  await page.click("#start");
  await expectStarted(page, address);
  return page;
}

export async function expectStarted(page: Page, address: string): Promise<void> {
  await expect.poll(() => page.textContent("#me"), POLL).toBe(address);
}

/** The connection indicator's words, e.g. "connected (WebSocket)" or "reconnecting…". */
export async function expectConnection(
  page: Page,
  words: string | RegExp,
  poll: { timeout: number } = POLL,
): Promise<void> {
  const shown = () => page.textContent("#transport");
  if (typeof words === "string") await expect.poll(shown, poll).toBe(words);
  else await expect.poll(shown, poll).toMatch(words);
}

/** Opens the conversation with `peer` (an account or an address) by typing it. */
export async function openConversation(page: Page, peer: string): Promise<void> {
  await page.fill("#peer", peer);
  await page.click("#open");
  await expect.poll(() => page.textContent("#peer-name"), POLL).toBe(peer.split(":")[0]);
}

/** Opens a conversation already in the list (one a message started) by clicking it. */
export async function showConversation(page: Page, conversation: string): Promise<void> {
  const entry = page.locator(`#conversations button[data-conversation="${conversation}"]`);
  await expect.poll(() => entry.count(), POLL).toBe(1);
  await entry.click();
  await expect.poll(() => page.textContent("#peer-name"), POLL).toBe(conversation);
}

/** Sends `text` in the open conversation; resolves once the page shows it `state` (sent). */
export async function send(page: Page, text: string, state = "sent"): Promise<void> {
  const before = await page.locator("#messages li.out").count();
  await page.fill("#message", text);
  await page.click("#send");
  const last = page.locator("#messages li.out").nth(before);
  await expect.poll(() => last.getAttribute("data-state"), POLL).toBe(state);
}

/** A message of the open conversation as a person sees it. */
export interface Shown {
  direction: "in" | "out";
  text: string;
  state: string;
  /** "alice:1", or "from your bob:2" on a copy of a message another device of mine sent. */
  from: string;
  time: string;
  title: string;
}

export function shownMessages(page: Page): Promise<Shown[]> {
  return page.locator("#messages li").evaluateAll((items) =>
    items.map((item) => ({
      direction: item.classList.contains("out") ? ("out" as const) : ("in" as const),
      text: item.querySelector(".text")?.textContent ?? "",
      state: item.querySelector(".state")?.textContent ?? "",
      from: item.querySelector(".from")?.textContent ?? "",
      time: item.querySelector("time")?.textContent ?? "",
      title: item.querySelector("time")?.getAttribute("title") ?? "",
    })),
  );
}

/**
 * The open conversation shows exactly `expected` (direction, text, state; in order: a duplicate
 * or a loss fails), and still does a moment later (a late duplicate fails too).
 */
export async function expectThread(
  page: Page,
  expected: Array<Pick<Shown, "direction" | "text" | "state">>,
): Promise<void> {
  const brief = async () =>
    (await shownMessages(page)).map(({ direction, text, state }) => ({ direction, text, state }));
  await expect.poll(brief, POLL).toEqual(expected);
  await page.waitForTimeout(300);
  expect(await brief()).toEqual(expected);
}

/** The banner's plain sentence ("" when none is shown) and the code it came from. */
export async function problem(page: Page): Promise<{ text: string; code: string | null }> {
  const hidden = await page.locator("#banner").isHidden();
  return {
    text: hidden ? "" : ((await page.textContent("#status")) ?? ""),
    code: await page.locator("#banner").getAttribute("data-code"),
  };
}

export async function expectNoProblem(page: Page): Promise<void> {
  expect(await problem(page)).toEqual({ text: "", code: null });
}

/** The page is no wider than its viewport: nothing scrolls sideways. */
export async function expectNoHorizontalScroll(page: Page, width: number): Promise<void> {
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(scrollWidth).toBeLessThanOrEqual(width);
}
