import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { browserSkipReason, launchBrowser } from "@svc/browser-harness";
import { ed25519KeyPairFromSeed, ed25519Sign, encodeBase64 } from "@svc/canonical";
import { bridgeQueryMessage, signedBody } from "@svc/protocol";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer } from "../src/test-support/app.js";

const TOKEN = "dashboard-token-0123456789";
const artifacts = fileURLToPath(new URL("../test-artifacts/", import.meta.url));

describe.skipIf(browserSkipReason() !== undefined)("observer dashboard in Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it("shows the connected count change when a bridge opens", async () => {
    const server = await startTestServer({ SVC_OBSERVER_TOKEN: TOKEN, SVC_KT: "off" });
    const seed = new Uint8Array(32).fill(9);
    const address = "dashboard@example.com:1";
    const register = await fetch(`${server.url}/v1/inbox/register`, {
      method: "POST",
      body: JSON.stringify(
        signedBody(
          "POST",
          "/v1/inbox/register",
          {
            address,
            signingPublicKey: encodeBase64(ed25519KeyPairFromSeed(seed).publicKey),
            signedAt: Date.now(),
          },
          seed,
        ),
      ),
    });
    expect(register.status).toBe(200);

    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${server.url}/svc-observer/`);
    await page.getByLabel("Observer token").fill(TOKEN);
    await page.getByRole("button", { name: "Connect" }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Live");
    const connected = page.locator('[data-field="connectedAddresses"]');
    await expect.poll(() => connected.textContent()).toBe("0");
    await expect
      .poll(() => page.locator('[data-field="pushSubscriptions"]').textContent())
      .toBe("0");

    const signedAt = Date.now();
    const signature = encodeBase64(
      ed25519Sign(bridgeQueryMessage({ address, kind: "stream", since: 0, signedAt }), seed),
    );
    const query = new URLSearchParams({
      address,
      kind: "stream",
      since: "0",
      signedAt: String(signedAt),
      signature,
    });
    const bridge = new AbortController();
    const stream = await fetch(`${server.url}/v1/bridge/stream?${query}`, {
      signal: bridge.signal,
    });
    expect(stream.status).toBe(200);

    await expect.poll(() => connected.textContent(), { timeout: 10_000 }).toBe("1");
    await expect.poll(() => page.locator('[data-field="sse"]').textContent()).toBe("1");
    await expect
      .poll(() => page.locator("#events").textContent())
      .toContain("inbox.peer_connected");
    await mkdir(artifacts, { recursive: true });
    await page.screenshot({ path: `${artifacts}observer-dashboard.png`, fullPage: true });

    bridge.abort();
    await expect.poll(() => connected.textContent(), { timeout: 10_000 }).toBe("0");
    await page.close();
  }, 60_000);
});
