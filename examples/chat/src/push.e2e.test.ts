import { createECDH, generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { browserSkipReason, launchBrowser } from "@svc/browser-harness";
import { createApi, memoryStore, SvcClient } from "@svc/client";
import { nodeClientOptions } from "@svc/client/node";
import { msgIdOf } from "@svc/protocol";
import type { Browser, BrowserContext, CDPSession, Worker } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatServer, startChatServer } from "./chat-server.js";
import {
  expectNoProblem,
  expectStarted,
  expectThread,
  newChatPage,
  openChat,
  POLL,
  screenshot,
  showConversation,
} from "./test-support/pages.js";

const skipReason = browserSkipReason();
if (skipReason !== undefined) console.warn(`chat wake-up test skipped: ${skipReason}`);

/**
 * Wake-ups in Chromium. Headless Chromium has no push service, so the page cannot subscribe; the
 * test plays the push service's part with CDP (ServiceWorker.deliverPushMessage), giving the
 * service worker the wake-up the server would have sent, with the page closed.
 */
describe.skipIf(skipReason !== undefined)("chat page wake-ups", () => {
  let dataDir: string;
  let chat: ChatServer;
  let browser: Browser;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "svc-chat-push-"));
    chat = await startChatServer({
      SVC_PORT: "0",
      SVC_DATA_DIR: dataDir,
      SVC_LOG_LEVEL: "warn",
      // The stand-in push service below listens on 127.0.0.1.
      SVC_PUSH_ALLOW_PRIVATE_ENDPOINTS: "on",
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await chat?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("with the page closed, the worker fetches, decrypts, notifies, and the page shows it once", async () => {
    const origin = new URL(chat.url).origin;
    const context = await browser.newContext();
    await context.grantPermissions(["notifications"], { origin });
    const alice = await openChat(browser, chat.url, "alice:1", { context });
    // No push service here: the page says so quietly and goes on working.
    await expect
      .poll(() => alice.textContent("#push"), POLL)
      .toBe("wake-ups: unavailable (this browser has no push service)");
    await expectNoProblem(alice);
    await alice.evaluate(() => navigator.serviceWorker.ready);
    const push = await pushService(context, `${origin}/`);
    const worker = await serviceWorker(context);
    await alice.close();

    const bob = await SvcClient.open({
      server: origin,
      store: memoryStore(),
      ...nodeClientOptions(),
    });
    await bob.init("bob:1");
    await bob.send("alice:1", new TextEncoder().encode("hello from bob"));
    await bob.close();
    await push.wake();
    // The worker's global scope (not in the DOM's types): its registration's notifications.
    const titles = () =>
      worker.evaluate(async () => {
        const scope = self as unknown as { registration: ServiceWorkerRegistration };
        return (await scope.registration.getNotifications()).map((note) => note.title);
      });
    await expect.poll(titles, POLL).toEqual(["bob:1: hello from bob"]);

    // A blob that does not decrypt: the notification says only that something came.
    const api = createApi({
      server: origin,
      fetch,
      maxRetries: 0,
      requestTimeoutMs: 10_000,
      now: Date.now,
    });
    const junk = new Uint8Array([2, ...new Uint8Array(80).fill(7)]);
    const sender = generateKeyPairSync("ed25519");
    const jwk = sender.privateKey.export({ format: "jwk" });
    await api.inboxDeposit(
      "alice:1",
      {
        msgId: msgIdOf(junk),
        ciphertext: Buffer.from(junk).toString("base64"),
        expiresAt: Date.now() + 3_600_000,
        senderPublicKey: Buffer.from(String(jwk.x), "base64url").toString("base64"),
        from: "bob:1",
      },
      Buffer.from(String(jwk.d), "base64url"),
    );
    await push.wake();
    await expect.poll(titles, POLL).toEqual(["bob:1: hello from bob", "New message"]);

    // Reopened, the page shows the message from its history, once: the worker acked it.
    const again = await newChatPage(browser, `${chat.url}#alice:1`, { context });
    await expectStarted(again, "alice:1");
    await showConversation(again, "bob");
    await expectThread(again, [{ direction: "in", text: "hello from bob", state: "received" }]);
    await screenshot(again, "wake-up-alice");
    await push.close();
    await context.close();
  });

  it("the server wakes the page's subscription only while the page is closed, and the worker shows it", async () => {
    const origin = new URL(chat.url).origin;
    // A push service of our own: the page's subscription points at it (the browser's PushManager
    // is given its endpoint), and each wake-up the server POSTs to it is handed to the worker.
    const service = await startStandInPushService();
    const context = await browser.newContext();
    await context.grantPermissions(["notifications"], { origin });
    await context.addInitScript(standInPushManager, service.subscription);
    const erin = await openChat(browser, chat.url, "erin:1", { context });
    await expect.poll(() => erin.textContent("#push"), POLL).toBe("wake-ups: on");
    await erin.evaluate(() => navigator.serviceWorker.ready);
    const push = await pushService(context, `${origin}/`);
    service.onWakeUp(() => push.wake());
    const worker = await serviceWorker(context);

    const frank = await SvcClient.open({
      server: origin,
      store: memoryStore(),
      ...nodeClientOptions(),
    });
    await frank.init("frank:1");
    // The page's bridge is open: it gets the message itself, and the server wakes nothing.
    await frank.send("erin:1", new TextEncoder().encode("while you look"));
    await showConversation(erin, "frank");
    await expectThread(erin, [{ direction: "in", text: "while you look", state: "received" }]);
    expect(service.wakeUps).toEqual([]);

    // Whether the server sees the page's bridge close before or after this deposit, it wakes the
    // page: at the deposit, or when the bridge closes with the blob still queued. (A second
    // wake-up may come if the page closed before its ack of the first message reached the server.)
    await erin.close();
    await frank.send("erin:1", new TextEncoder().encode("while you are away"));
    await frank.close();
    await expect.poll(() => service.wakeUps.length, POLL).toBeGreaterThanOrEqual(1);
    expect(service.wakeUps[0]).toMatchObject({
      "content-encoding": "aes128gcm",
      urgency: "high",
      authorization: expect.stringMatching(/^vapid t=/),
    });
    const titles = () =>
      worker.evaluate(async () => {
        const scope = self as unknown as { registration: ServiceWorkerRegistration };
        return (await scope.registration.getNotifications()).map((note) => note.title);
      });
    await expect.poll(titles, POLL).toEqual(["frank:1: while you are away"]);

    const again = await newChatPage(browser, `${chat.url}#erin:1`, { context });
    await expectStarted(again, "erin:1");
    await showConversation(again, "frank");
    await expectThread(again, [
      { direction: "in", text: "while you look", state: "received" },
      { direction: "in", text: "while you are away", state: "received" },
    ]);
    await screenshot(again, "wake-up-from-server-erin");
    await push.close();
    await context.close();
    await service.close();
  });
});

/** What PushSubscription.toJSON() gives. */
interface SubscriptionJson {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/**
 * Runs in the page before its scripts: a PushManager whose subscribe() answers with the stand-in
 * service's subscription, as a browser with a push service would answer with its own.
 */
function standInPushManager(subscription: SubscriptionJson): void {
  const made = {
    endpoint: subscription.endpoint,
    expirationTime: null,
    options: { applicationServerKey: null, userVisibleOnly: true },
    toJSON: () => ({ ...subscription, expirationTime: null }),
    unsubscribe: async () => true,
  };
  PushManager.prototype.getSubscription = async () => null;
  PushManager.prototype.subscribe = async () => made as unknown as PushSubscription;
}

/**
 * The push service's receiving end: it takes the server's RFC 8030 POSTs (recording their
 * headers) and, for each, calls the hook that delivers it to the browser.
 */
async function startStandInPushService(): Promise<{
  subscription: SubscriptionJson;
  wakeUps: Array<Record<string, string | string[] | undefined>>;
  onWakeUp(deliver: () => Promise<void>): void;
  close(): Promise<void>;
}> {
  const wakeUps: Array<Record<string, string | string[] | undefined>> = [];
  let deliver: () => Promise<void> = async () => undefined;
  const server = createServer(async (req, res) => {
    for await (const _ of req) {
      // The body is encrypted to the subscription's keys; the browser would decrypt it.
    }
    wakeUps.push(req.headers);
    res.writeHead(201).end();
    await deliver();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  return {
    subscription: {
      endpoint: `http://127.0.0.1:${port}/push/erin`,
      keys: {
        p256dh: ecdh.getPublicKey().toString("base64url"),
        auth: randomBytes(16).toString("base64url"),
      },
    },
    wakeUps,
    onWakeUp: (hook) => {
      deliver = hook;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The push service's part: the registration of the page's worker found with CDP (on a blank page
 * of the same context, which stays when the chat page closes), and a wake-up delivered to it.
 */
async function pushService(
  context: BrowserContext,
  scope: string,
): Promise<{ wake(): Promise<void>; close(): Promise<void> }> {
  const page = await context.newPage();
  const cdp: CDPSession = await context.newCDPSession(page);
  const registrations = new Map<string, string>();
  cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations: updated }) => {
    for (const entry of updated) {
      if (!entry.isDeleted) registrations.set(entry.scopeURL, entry.registrationId);
    }
  });
  await cdp.send("ServiceWorker.enable");
  await expect.poll(() => registrations.get(scope), POLL).toBeDefined();
  const registrationId = registrations.get(scope) as string;
  return {
    wake: () =>
      cdp
        .send("ServiceWorker.deliverPushMessage", {
          origin: new URL(scope).origin,
          registrationId,
          data: JSON.stringify({ v: 1, pending: 1 }),
        })
        .then(() => undefined),
    close: () => page.close(),
  };
}

/** The page's service worker, as playwright reaches it (to read its notifications). */
async function serviceWorker(context: BrowserContext): Promise<Worker> {
  const [running] = context.serviceWorkers();
  return running ?? (await context.waitForEvent("serviceworker"));
}
