import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBrowserBundle } from "../scripts/build-browser.mjs";

/**
 * @svc/kt-verify in a real headless Chromium: the esbuild ESM bundle (`build:browser`) verifies
 * the proofs of kt-vectors.json (made by a real log) with WebCrypto, keeps its trusted STH in
 * localStorage, and refuses a tampered proof.
 */
const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `kt-verify browser test skipped: ${CHROMIUM} is not installed (apt-get install chromium)`,
  );
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>kt-verify</title>
<script type="module">
  import * as kt from "/kt-verify.browser.js";
  window.kt = kt;
  window.vectors = await (await fetch("/kt-vectors.json")).json();
  window.ready = true;
</script>`;

describe.runIf(hasChromium)(`kt-verify in headless Chromium (${CHROMIUM})`, () => {
  let server: Server;
  let browser: Browser;
  let url: string;

  beforeAll(async () => {
    const bundle = await readFile(await buildBrowserBundle(), "utf8");
    const vectors = await readFile(new URL("./fixtures/kt-vectors.json", import.meta.url), "utf8");
    server = createServer((req, res) => {
      const [type, body] =
        req.url === "/kt-verify.browser.js"
          ? ["text/javascript", bundle]
          : req.url === "/kt-vectors.json"
            ? ["application/json", vectors]
            : ["text/html", PAGE];
      res.writeHead(200, { "content-type": type }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it("verifies every vector proof in the page, with WebCrypto Ed25519", async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(url);
    await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
    const result = await page.evaluate(async () => {
      const { kt, vectors } = window as unknown as { kt: any; vectors: any };
      const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
      const publicKey = b64(vectors.operator.publicKey);
      const sths = vectors.sths.map((s: unknown) => kt.parseSth(s));
      const client = {
        logPublicKey: async () => publicKey,
        sth: async (n?: number) => sths[n ?? 3],
        consistency: async (from: number, to: number) =>
          (
            vectors.consistency.find(
              (c: { from: number; to: number }) => c.from === from && c.to === to,
            )?.proof ?? []
          ).map(b64),
        leaves: async () => [],
      };
      localStorage.clear();
      const verifier = new kt.KtVerifier({
        logPublicKey: publicKey,
        client,
        store: kt.localStorageStore("svc-kt-sth"),
        now: () => sths[3].timestampMs + 1000,
      });
      const bob = vectors.changes[1];
      const claims: Record<string, unknown> = {
        inclusion: {
          type: "inclusion",
          identitySigningKey: b64(bob.identitySigningKey),
          identityDHKey: b64(bob.identityDHKey),
        },
        tombstone: { type: "tombstone" },
        absence: { type: "absence" },
      };
      const verified: string[] = [];
      for (const [type, { address, ktProof }] of Object.entries(vectors.proofs) as [
        string,
        { address: string; ktProof: unknown },
      ][]) {
        verified.push((await verifier.verifyProof(address, ktProof, claims[type])).type);
      }
      const tampered = structuredClone(vectors.proofs.inclusion.ktProof);
      tampered.body.leafIndex = 0;
      let tamperedCode = "accepted";
      try {
        await verifier.verifyProof("bob@example.org:1", tampered, claims.inclusion);
      } catch (error) {
        tamperedCode = (error as { code: string }).code;
      }
      return {
        verified,
        tamperedCode,
        webCrypto: await kt.webCryptoEd25519(),
        stored: JSON.parse(localStorage.getItem("svc-kt-sth") ?? "null")?.treeSize,
        nodeGlobals: typeof (globalThis as { process?: unknown }).process,
      };
    });
    expect(errors).toEqual([]);
    expect(result).toEqual({
      verified: ["inclusion", "tombstone", "absence"],
      tamperedCode: "KT_BAD_PROOF",
      webCrypto: true,
      stored: 3,
      nodeGlobals: "undefined",
    });
    await page.close();
  });
});
