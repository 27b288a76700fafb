import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { browserSkipReason, launchBrowser } from "@svc/browser-harness";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ChatServer, startChatServer } from "./chat-server.js";
import {
  expectConnection,
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
import { cliBuilt, jsonLines, type SvcRun, svc, svcJson } from "./test-support/svc-cli.js";

const skipReason =
  browserSkipReason() ?? (cliBuilt ? undefined : "the svc CLI is not built (pnpm build)");
if (skipReason !== undefined) {
  console.warn(`chat device tests skipped: ${skipReason}`);
}

/**
 * Several devices per person: pages and the `svc` command line as devices of one account,
 * linked by a one-time code, in one conversation.
 */
describe.skipIf(skipReason !== undefined)("chat page with several devices", () => {
  let dataDir: string;
  let homes: string;
  let chat: ChatServer;
  let server: string;
  let browser: Browser;
  const running: SvcRun[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "svc-chat-devices-"));
    homes = await mkdtemp(join(tmpdir(), "svc-chat-homes-"));
    chat = await startChatServer({ SVC_PORT: "0", SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: "warn" });
    server = chat.url.replace(/\/$/, "");
    browser = await launchBrowser();
  });

  afterEach(async () => {
    for (const run of running.splice(0)) {
      run.child.kill("SIGTERM");
      await run.exited;
    }
  });

  afterAll(async () => {
    await browser?.close();
    await chat?.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(homes, { recursive: true, force: true });
  });

  const start = (home: string, argv: string[]) => {
    const run = svc(server, join(homes, home), argv);
    running.push(run);
    return run;
  };

  it("puts two pages and the CLI, a second device of bob linked by the page's code, in one conversation", async () => {
    const alice = await openChat(browser, chat.url, "alice:1");
    const bob = await openChat(browser, chat.url, "bob:1");

    // bob's page shows a code; the CLI becomes bob:2 with it.
    await bob.click("#link-device");
    await expect.poll(() => bob.textContent("#link-code"), POLL).toMatch(/^1-[0-9A-Z-]{19}$/);
    await expectConnection(bob, "paused while linking");
    const code = (await bob.textContent("#link-code")) as string;
    await screenshot(bob, "link-code-shown");
    const linked = await svcJson(server, join(homes, "bob2"), [
      "init",
      "--address",
      "bob:2",
      "--link",
      code,
    ]);
    expect(linked).toEqual([
      {
        account: "bob",
        version: 2,
        devices: [
          { address: "bob:1", identitySigningKey: expect.any(String) },
          { address: "bob:2", identitySigningKey: expect.any(String) },
        ],
      },
    ]);
    await expect
      .poll(() => bob.textContent("#link-result"), POLL)
      .toBe("Linked bob:2 (device list version 2).");
    expect(await bob.textContent("#devices")).toBe("bob:1 (this one), bob:2");
    await expectConnection(bob, "connected (WebSocket)");

    // alice writes to the account: both of bob's devices get it.
    const listening = start("bob2", ["listen", "--json"]);
    await openConversation(alice, "bob");
    await send(alice, "hello, both of you");
    await showConversation(bob, "alice");
    await expectThread(bob, [{ direction: "in", text: "hello, both of you", state: "received" }]);
    await expect
      .poll(() => jsonLines(listening.stdout()), POLL)
      .toEqual([
        { from: "alice:1", to: "bob", text: "hello, both of you", msgId: expect.any(String) },
      ]);

    // bob answers from the CLI: alice gets it, and bob's page shows it as his own.
    await svcJson(server, join(homes, "bob2"), ["send", "alice", "from my terminal"]);
    await expectThread(alice, [
      { direction: "out", text: "hello, both of you", state: "sent" },
      { direction: "in", text: "from my terminal", state: "received" },
    ]);
    await expectThread(bob, [
      { direction: "in", text: "hello, both of you", state: "received" },
      { direction: "out", text: "from my terminal", state: "sent" },
    ]);
    expect((await shownMessages(bob)).map((message) => message.from)).toEqual([
      "alice:1",
      "from your bob:2",
    ]);
    expect((await shownMessages(alice)).map((message) => message.from)).toEqual(["", "bob:2"]);

    // And from bob's page: alice gets it, the CLI prints the copy as sent by bob.
    await send(bob, "and from my browser");
    await expectThread(alice, [
      { direction: "out", text: "hello, both of you", state: "sent" },
      { direction: "in", text: "from my terminal", state: "received" },
      { direction: "in", text: "and from my browser", state: "received" },
    ]);
    await expect
      .poll(() => jsonLines(listening.stdout()).slice(1), POLL)
      .toEqual([
        {
          from: "bob:1",
          to: "alice",
          text: "and from my browser",
          msgId: expect.any(String),
          sent: true,
        },
      ]);
    await screenshot(alice, "devices-alice");
    await screenshot(bob, "devices-bob");
    await expectNoProblem(alice);
    await expectNoProblem(bob);
  });

  it("refuses a device list the server forged, in plain words, and sends nothing", async () => {
    const erin = await openChat(browser, chat.url, "erin:1");
    const fred = await openChat(browser, chat.url, "fred:1");
    await openConversation(erin, "fred");
    // The server (here the network between) serves fred's list with a device of its own.
    const fredsList = (url: URL) => url.pathname === "/v1/devices/fred";
    await erin.route(fredsList, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, body: withGhost(await response.text()) });
    });
    await send(erin, "for fred only", "failed");
    expect(await problem(erin)).toEqual({
      code: "DEVICE_LIST_INVALID",
      text: "The list of fred's devices could not be verified (it may name a device that is not theirs), so nothing was sent.",
    });
    await screenshot(erin, "forged-device-list");
    await erin.unroute(fredsList);
    await send(erin, "the list is fred's own again");
    await expectNoProblem(erin);
    await showConversation(fred, "erin");
    await expectThread(fred, [
      { direction: "in", text: "the list is fred's own again", state: "received" },
    ]);
  });

  it("links this browser to an account by the CLI's code, refusing a wrong code in plain words", async () => {
    await svcJson(server, join(homes, "carol1"), ["init", "--address", "carol:1"]);
    const approving = start("carol1", ["devices", "link", "--json"]);
    await expect.poll(() => jsonLines(approving.stdout()).length, POLL).toBe(1);
    const [{ code }] = jsonLines(approving.stdout()) as [{ code: string }];
    const page = await newChatPage(browser, chat.url);

    await page.fill("#link-address", "carol:2");
    await page.fill("#link-code-input", wrong(code));
    await page.click("#link-start");
    await expect
      .poll(() => problem(page), POLL)
      .toEqual({
        code: "LINK_REFUSED",
        text: "Your other device refused this link: the code was wrong or is used up. Check the code, or ask for a new one, and try again.",
      });
    expect(await page.locator("#setup").isVisible()).toBe(true);
    await screenshot(page, "link-refused");

    await page.fill("#link-code-input", code);
    await page.click("#link-start");
    await expectStarted(page, "carol:2");
    await expect.poll(() => page.textContent("#devices"), POLL).toBe("carol:1, carol:2 (this one)");
    await expectNoProblem(page);
    expect(await approving.exited).toBe(0);
    expect(jsonLines(approving.stdout())[1]).toEqual({ linked: "carol:2", version: 2 });
    const [list] = await svcJson(server, join(homes, "carol1"), ["devices", "list"]);
    expect(list).toMatchObject({
      account: "carol",
      version: 2,
      devices: [{ address: "carol:1" }, { address: "carol:2" }],
    });

    // The linked page is carol's: it gets what is sent to her account, and her copies.
    await expectConnection(page, "connected (WebSocket)");
    const dan = await openChat(browser, chat.url, "dan:1");
    await openConversation(dan, "carol");
    await send(dan, "hi carol");
    await showConversation(page, "dan");
    await svcJson(server, join(homes, "carol1"), ["send", "dan", "hi dan, from my laptop"]);
    await expectThread(page, [
      { direction: "in", text: "hi carol", state: "received" },
      { direction: "out", text: "hi dan, from my laptop", state: "sent" },
    ]);
    await screenshot(page, "linked-browser");

    // A reload keeps the linked device.
    await page.reload();
    await expectStarted(page, "carol:2");
    await showConversation(page, "dan");
    await expect
      .poll(async () => (await shownMessages(page)).map((message) => message.text), POLL)
      .toEqual(["hi carol", "hi dan, from my laptop"]);
  });
});

/** The list as served, with a device the account never signed for put in by the server. */
function withGhost(body: string): string {
  const list = JSON.parse(body) as {
    devices: Array<{ address: string; identitySigningKey: string }>;
  };
  // After the account's first device in address order (fred:1, fred:19), with a key of its own.
  list.devices.push({
    address: `${list.devices[0]?.address}9`,
    identitySigningKey: `${"A".repeat(43)}=`,
  });
  return JSON.stringify(list);
}

/** The code with one character of its secret changed: well formed, but not the one shown. */
function wrong(code: string): string {
  const last = code.at(-1);
  return `${code.slice(0, -1)}${last === "0" ? "1" : "0"}`;
}
