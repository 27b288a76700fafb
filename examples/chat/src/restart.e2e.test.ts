import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { browserSkipReason, launchBrowser } from "@svc/browser-harness";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatServer, startChatServer } from "./chat-server.js";
import {
  expectConnection,
  expectNoProblem,
  expectThread,
  openChat,
  openConversation,
  POLL,
  problem,
  RECONNECT_POLL,
  screenshot,
  send,
  showConversation,
} from "./test-support/pages.js";

const CONNECTED = /^connected \((WebSocket|SSE)\)$/;

const skipReason = browserSkipReason();
if (skipReason !== undefined) console.warn(`chat restart test skipped: ${skipReason}`);

/** The server goes away and comes back on the same port and data: the pages say so, truly. */
describe.skipIf(skipReason !== undefined)("chat page across a server restart", () => {
  let dataDir: string;
  let chat: ChatServer | undefined;
  let browser: Browser;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "svc-chat-restart-"));
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await chat?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("shows reconnecting while the server is down, then connected, and delivery resumes", async () => {
    const env = { SVC_PORT: "0", SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: "warn" };
    chat = await startChatServer(env);
    const { url } = chat;
    const alice = await openChat(browser, url, "alice:1");
    const bob = await openChat(browser, url, "bob:1");
    await openConversation(alice, "bob");
    await send(alice, "before the restart");
    await showConversation(bob, "alice");
    await expectConnection(alice, "connected (WebSocket)");
    await expectConnection(bob, "connected (WebSocket)");

    await chat.stop();
    chat = undefined;
    await expectConnection(alice, "reconnecting…");
    await expectConnection(bob, "reconnecting…");
    // Sent while the server is away: it fails, in words a person understands, with a retry.
    await send(alice, "while you were away", "failed");
    expect(await problem(alice)).toEqual({
      code: expect.stringMatching(/^(NETWORK|TIMEOUT)$/),
      text: "The server can't be reached right now. Check your connection; you can retry once it is back.",
    });
    await screenshot(alice, "reconnecting-alice");

    chat = await startChatServer({ ...env, SVC_PORT: new URL(url).port });
    // Over WebSocket again, or SSE when a loaded machine opens the socket too slowly.
    await expectConnection(alice, CONNECTED, RECONNECT_POLL);
    await expectConnection(bob, CONNECTED, RECONNECT_POLL);
    // Back: the sentence that it cannot be reached went with the outage.
    await expectNoProblem(alice);
    await alice.click("#messages li.out .retry");
    await expect
      .poll(() => alice.locator("#messages li.out").nth(1).getAttribute("data-state"), POLL)
      .toBe("sent");
    await send(alice, "after the restart");
    await send(bob, "got them all");
    const expected = [
      { direction: "in", text: "before the restart", state: "received" },
      { direction: "in", text: "while you were away", state: "received" },
      { direction: "in", text: "after the restart", state: "received" },
      { direction: "out", text: "got them all", state: "sent" },
    ] as const;
    await expectThread(bob, [...expected]);
    await expectThread(
      alice,
      expected.map((message) => ({
        text: message.text,
        direction: message.direction === "in" ? ("out" as const) : ("in" as const),
        state: message.state === "sent" ? "received" : "sent",
      })),
    );
    await screenshot(alice, "after-restart-alice");
    await expectNoProblem(bob);
  });
});
