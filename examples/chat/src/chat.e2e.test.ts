import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { browserSkipReason, launchBrowser } from "@svc/browser-harness";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatServer, startChatServer } from "./chat-server.js";

/** Registering an identity, a KT check or a delivery may take seconds on a busy machine. */
const POLL = { timeout: 15_000 };

const skipReason = browserSkipReason();
if (skipReason !== undefined) {
  console.warn(`chat page tests skipped: ${skipReason}; CI=1 or SVC_REQUIRE_BROWSER=1 fails them`);
}

/**
 * People chat through the example's server, driving the page as a person would: each in a
 * browser context of their own (their own IndexedDB), or two in the tabs of one.
 */
describe.skipIf(skipReason !== undefined)("chat page", () => {
  let dataDir: string;
  let chat: ChatServer;
  let browser: Browser;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "svc-chat-"));
    chat = await startChatServer({ SVC_PORT: "0", SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: "warn" });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await chat?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("delivers every message once both ways over WebSocket, across a reload of one page", async () => {
    const alice = await openChat("alice:1");
    const bob = await openChat("bob:1");
    await expectTransport(alice, "WebSocket");
    await expectTransport(bob, "WebSocket");

    await send(alice, "bob:1", "hello bob");
    await expectReceived(bob, ["alice:1: hello bob"]);
    await send(bob, "alice:1", "hi alice");
    await send(bob, "alice:1", "how are you?");
    await expectReceived(alice, ["bob:1: hi alice", "bob:1: how are you?"]);
    for (const text of ["fine", "and you?", "all good here"]) await send(alice, "bob:1", text);
    await expectReceived(bob, [
      "alice:1: hello bob",
      "alice:1: fine",
      "alice:1: and you?",
      "alice:1: all good here",
    ]);

    await bob.reload();
    // Sent while bob's page opens its identity again: it waits in the inbox or comes live.
    await send(alice, "bob:1", "still there?");
    await expectStarted(bob, "bob:1");
    await expectTransport(bob, "WebSocket");
    await send(alice, "bob:1", "welcome back");
    await expectReceived(bob, ["alice:1: still there?", "alice:1: welcome back"]);
    await send(bob, "alice:1", "yes, after a reload");
    await expectReceived(alice, [
      "bob:1: hi alice",
      "bob:1: how are you?",
      "bob:1: yes, after a reload",
    ]);
    await expectNoProblem(alice);
    await expectNoProblem(bob);
    await expectKtVerified(alice, "alice:1");
    await expectKtVerified(bob, "bob:1");
  });

  it("delivers over SSE to a page without WebSocket, two identities in one browser", async () => {
    const context = await browser.newContext();
    const carol = await openChat("carol:1", { context, withoutWebSocket: true });
    const dave = await openChat("dave:1", { context });
    await expectTransport(carol, "SSE");
    await expectTransport(dave, "WebSocket");

    await send(dave, "carol:1", "can you hear me?");
    await expectReceived(carol, ["dave:1: can you hear me?"]);
    await send(carol, "dave:1", "over SSE");
    await expectReceived(dave, ["carol:1: over SSE"]);
    await expectNoProblem(carol);
    await expectNoProblem(dave);
  });

  it("marks the messages of a PQXDH session post-quantum on both pages", async () => {
    const erin = await openChat("erin:1");
    const frank = await openChat("frank:1");
    await send(erin, "frank:1", "quantum-safe?");
    await expectReceived(frank, ["erin:1: quantum-safe?"]);
    await send(frank, "erin:1", "yes");
    await expectReceived(erin, ["frank:1: yes"]);
    for (const page of [erin, frank]) {
      const messages = page.locator("#messages li");
      expect(await messages.count()).toBe(2);
      expect(await page.locator("#messages li.post-quantum").count()).toBe(2);
      expect(await messages.first().getAttribute("title")).toBe(
        "post-quantum session (PQXDH: X25519 and ML-KEM-1024)",
      );
      // The mark is shown: the page's CSS adds it after the line, from client.session().
      expect(
        await messages.first().evaluate((item) => getComputedStyle(item, "::after").content),
      ).toBe('"post-quantum"');
      await expectNoProblem(page);
    }
  });

  /** A page started as `address`, in a new browser context (a browser of its own) by default. */
  async function openChat(
    address: string,
    options: { context?: BrowserContext; withoutWebSocket?: boolean } = {},
  ): Promise<Page> {
    const page = await (options.context ?? (await browser.newContext())).newPage();
    if (options.withoutWebSocket) {
      await page.addInitScript(() => {
        Reflect.deleteProperty(globalThis, "WebSocket");
      });
    }
    await page.goto(chat.url);
    await page.fill("#address", address);
    await page.click("#start");
    await expectStarted(page, address);
    return page;
  }
});

async function expectStarted(page: Page, address: string): Promise<void> {
  await expect.poll(() => page.textContent("#me"), POLL).toBe(address);
}

async function expectTransport(page: Page, transport: string): Promise<void> {
  await expect.poll(() => page.textContent("#transport"), POLL).toBe(transport);
}

/** Sends from the page's compose form; resolves once the page shows the message as sent. */
async function send(page: Page, to: string, text: string): Promise<void> {
  const sent = await page.locator("#messages li.sent").count();
  await page.fill("#peer", to);
  await page.fill("#message", text);
  await page.click("#send");
  await expect.poll(() => page.locator("#messages li.sent").count(), POLL).toBe(sent + 1);
}

/**
 * The page's received messages are exactly `lines`, in order (a duplicate or a loss fails), and
 * still are a moment later (a late duplicate fails too).
 */
async function expectReceived(page: Page, lines: string[]): Promise<void> {
  const received = () => page.locator("#messages li.received").allTextContents();
  await expect.poll(received, POLL).toEqual(lines);
  await page.waitForTimeout(300);
  expect(await received()).toEqual(lines);
}

/** The page reported nothing: no refused send, dropped envelope or failed ack. */
async function expectNoProblem(page: Page): Promise<void> {
  expect(await page.textContent("#status")).toBe("");
}

/**
 * The identity's state in the page's IndexedDB (what idbStore saved, a StoredState) holds a tree
 * head of the server's KT log that takes in both identities: the client verified the peer's
 * bundle against it (it pins the log on init, but keeps a tree head only from a verified proof).
 */
async function expectKtVerified(page: Page, address: string): Promise<void> {
  const treeSize = await page.evaluate(async (key) => {
    const open = indexedDB.open("svc-chat");
    const database = await new Promise<IDBDatabase>((resolve, reject) => {
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const get = database.transaction("states").objectStore("states").get(key);
    const state = await new Promise<{ kt: { trustedSth: { treeSize: number } | null } | null }>(
      (resolve, reject) => {
        get.onsuccess = () => resolve(get.result);
        get.onerror = () => reject(get.error);
      },
    );
    database.close();
    return state.kt?.trustedSth?.treeSize;
  }, address);
  expect(treeSize).toBeGreaterThanOrEqual(2);
}
