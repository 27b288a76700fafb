import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { browserSkipReason, launchBrowser } from "@svc/browser-harness";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatServer, startChatServer } from "./chat-server.js";
import {
  expectConnection,
  expectNoHorizontalScroll,
  expectNoProblem,
  expectStarted,
  expectThread,
  newChatPage,
  openChat,
  openConversation,
  POLL,
  problem,
  screenshot,
  send,
  showConversation,
  shownMessages,
} from "./test-support/pages.js";

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
  const open = (address: string, options?: Parameters<typeof openChat>[3]) =>
    openChat(browser, chat.url, address, options);

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

  it("keeps a conversation per person, both ways, with times and states, across a reload", async () => {
    const alice = await open("alice:1");
    const bob = await open("bob:1");
    await expectConnection(alice, "connected (WebSocket)");
    await expectConnection(bob, "connected (WebSocket)");

    await openConversation(alice, "bob");
    await send(alice, "hello bob");
    await showConversation(bob, "alice");
    await expectThread(bob, [{ direction: "in", text: "hello bob", state: "received" }]);
    await send(bob, "hi alice");
    await send(bob, "how are you?");
    await expectThread(alice, [
      { direction: "out", text: "hello bob", state: "sent" },
      { direction: "in", text: "hi alice", state: "received" },
      { direction: "in", text: "how are you?", state: "received" },
    ]);

    // A message to no one fails in plain words, in its own conversation, and stays there.
    await openConversation(alice, "nobody:1");
    await send(alice, "anyone?", "failed");
    expect(await problem(alice)).toEqual({
      code: expect.stringMatching(/^SVC_NOT_(FOUND|REGISTERED)$/),
      text: "There is no one called nobody on this server. Check the address (like bob, or bob:1).",
    });
    expect(await alice.locator("#messages li.out .retry").count()).toBe(1);
    await alice.click("#dismiss");
    await expectNoProblem(alice);
    await alice.click("#messages li.out .retry");
    await expect.poll(() => problem(alice), POLL).toMatchObject({ text: /^There is no one/ });
    expect(await alice.locator("#messages li.out").count()).toBe(1);
    // The next thing that works clears it.
    await showConversation(alice, "bob");
    await send(alice, "fine, and you?");
    await expectNoProblem(alice);

    const everything = [
      { direction: "out", text: "hello bob", state: "sent" },
      { direction: "in", text: "hi alice", state: "received" },
      { direction: "in", text: "how are you?", state: "received" },
      { direction: "out", text: "fine, and you?", state: "sent" },
    ] as const;
    await expectThread(alice, [...everything]);
    const flipped = everything.map((m) => ({
      ...m,
      direction: m.direction === "out" ? ("in" as const) : ("out" as const),
      state: m.state === "sent" ? "received" : "sent",
    }));
    await expectThread(bob, flipped);
    const shown = await shownMessages(bob);
    for (const message of shown) {
      expect(message.time).toMatch(/^\d\d:\d\d$/);
      expect(message.title).not.toBe("");
    }
    await screenshot(alice, "conversation-alice");
    await screenshot(bob, "conversation-bob");

    // A reload carries on: the same conversations, messages, states and times, from IndexedDB.
    await bob.reload();
    await expectStarted(bob, "bob:1");
    await expectConnection(bob, "connected (WebSocket)");
    const listed = (page: Page) => page.locator("#conversations button").allTextContents();
    await expect.poll(() => listed(bob), POLL).toEqual(["alice"]);
    await showConversation(bob, "alice");
    await expect.poll(() => shownMessages(bob), POLL).toEqual(shown);
    await alice.reload();
    await expectStarted(alice, "alice:1");
    await expect.poll(() => listed(alice), POLL).toEqual(["bob", "nobody"]);
    await showConversation(alice, "nobody");
    await expectThread(alice, [{ direction: "out", text: "anyone?", state: "failed" }]);
    await showConversation(alice, "bob");
    await expectThread(alice, [...everything]);

    await send(bob, "yes, after a reload");
    await expectThread(alice, [
      ...everything,
      { direction: "in", text: "yes, after a reload", state: "received" },
    ]);
    await screenshot(bob, "after-reload-bob");

    // Another browser cannot take alice:1: it is told how to go on, in words.
    const stranger = await newChatPage(browser, chat.url);
    await stranger.fill("#address", "alice:1");
    await stranger.click("#start");
    await expect
      .poll(() => problem(stranger), POLL)
      .toEqual({
        code: "SVC_IDENTITY_MISMATCH",
        text: "That address already belongs to another device. Pick another device number, or link this browser to your account.",
      });
    expect(await stranger.locator("#setup").isVisible()).toBe(true);
    await expectNoProblem(alice);
    await expectNoProblem(bob);
    await expectKtVerified(alice, "alice:1");
    await expectKtVerified(bob, "bob:1");
  });

  it("delivers over SSE to a page without WebSocket, two identities in one browser", async () => {
    const context = await browser.newContext();
    const carol = await open("carol:1", { context, withoutWebSocket: true });
    const dave = await open("dave:1", { context });
    await expectConnection(carol, "connected (SSE)");
    await expectConnection(dave, "connected (WebSocket)");

    await openConversation(dave, "carol:1");
    await send(dave, "can you hear me?");
    await showConversation(carol, "dave");
    await expectThread(carol, [{ direction: "in", text: "can you hear me?", state: "received" }]);
    await send(carol, "over SSE");
    await expectThread(dave, [
      { direction: "out", text: "can you hear me?", state: "sent" },
      { direction: "in", text: "over SSE", state: "received" },
    ]);
    await expectNoProblem(carol);
    await expectNoProblem(dave);
  });

  it("marks the messages of a PQXDH session post-quantum on both pages", async () => {
    const erin = await open("erin:1");
    const frank = await open("frank:1");
    await openConversation(erin, "frank");
    await send(erin, "quantum-safe?");
    await showConversation(frank, "erin");
    await send(frank, "yes");
    await expectThread(erin, [
      { direction: "out", text: "quantum-safe?", state: "sent" },
      { direction: "in", text: "yes", state: "received" },
    ]);
    for (const page of [erin, frank]) {
      const messages = page.locator("#messages li");
      expect(await messages.count()).toBe(2);
      expect(await page.locator("#messages li.post-quantum").count()).toBe(2);
      expect(await messages.first().getAttribute("title")).toBe(
        "post-quantum session (PQXDH: X25519 and ML-KEM-1024)",
      );
      // The mark is shown: the page's CSS adds it after the message's details.
      expect(
        await messages
          .first()
          .locator(".meta")
          .evaluate((meta) => getComputedStyle(meta, "::after").content),
      ).toBe('"post-quantum"');
      await expectNoProblem(page);
    }
  });

  it("tells a browser that holds no device for the address in its URL how to go on", async () => {
    const page = await newChatPage(browser, `${chat.url}#zed%3A1`);
    await expect
      .poll(() => problem(page), POLL)
      .toEqual({
        code: "NO_IDENTITY",
        text: "This browser holds no device for that address (its data may have been cleared). Start a new account, or link this browser to yours.",
      });
    expect(await page.locator("#setup").isVisible()).toBe(true);
    expect(await page.inputValue("#address")).toBe("zed:1");
    await page.click("#start");
    await expectStarted(page, "zed:1");
    await expectNoProblem(page);
  });

  it("fits a 390 px wide phone: no sideways scroll, the list behind a back button", async () => {
    const viewport = { width: 390, height: 844 };
    const gina = await newChatPage(browser, chat.url, { viewport });
    await expectNoHorizontalScroll(gina, viewport.width);
    await screenshot(gina, "narrow-390-setup");
    await gina.fill("#address", "gina:1");
    await gina.click("#start");
    await expectStarted(gina, "gina:1");
    await open("hal:1");
    await expectNoHorizontalScroll(gina, viewport.width);
    await expect.poll(() => gina.locator("#sidebar").isVisible(), POLL).toBe(true);
    await openConversation(gina, "hal");
    // The conversation takes the screen; the composer is on it and usable.
    expect(await gina.locator("#sidebar").isVisible()).toBe(false);
    const composer = await gina.locator("#compose").boundingBox();
    expect(composer).not.toBeNull();
    if (composer) {
      expect(composer.x).toBeGreaterThanOrEqual(0);
      expect(composer.x + composer.width).toBeLessThanOrEqual(viewport.width);
      expect(composer.y + composer.height).toBeLessThanOrEqual(viewport.height);
    }
    await send(gina, "a long message that has to wrap on a narrow screen, ".repeat(4).trim());
    await send(gina, "short");
    await expectNoHorizontalScroll(gina, viewport.width);
    await screenshot(gina, "narrow-390-thread");
    await gina.click("#back");
    await expect.poll(() => gina.locator("#sidebar").isVisible(), POLL).toBe(true);
    await expectNoHorizontalScroll(gina, viewport.width);
    await screenshot(gina, "narrow-390-list");
    await expectNoProblem(gina);
  });
});

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
