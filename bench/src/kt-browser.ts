import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { encodeBase64 } from "@svc/canonical";
import { type KtClaim, type KtProof, ktProofToJson } from "@svc/kt-verify";
import { buildBrowserBundle } from "@svc/kt-verify/browser-bundle";
import { chromium } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";

/**
 * Verifies one bundle proof (STH signature, log inclusion, index map proof) in a loop inside
 * headless Chromium, loading the same ESM bundle a page would. Undefined without Chromium.
 */
export async function chromiumVerificationsPerSecond(
  proof: KtProof,
  claim: Extract<KtClaim, { type: "inclusion" }>,
  address: string,
  logPublicKey: Uint8Array,
  durationMs: number,
): Promise<{ opsPerSec: number; msPerProof: number } | undefined> {
  if (!existsSync(CHROMIUM)) return undefined;
  const bundle = await readFile(await buildBrowserBundle(), "utf8");
  const server = createServer((req, res) => {
    if (req.url === "/kt-verify.browser.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(bundle);
    } else {
      res
        .writeHead(200, { "content-type": "text/html" })
        .end('<!doctype html><meta charset="utf-8">');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  try {
    const page = await browser.newPage();
    await page.goto(url);
    const input = {
      proof: ktProofToJson(proof),
      address,
      signingKey: encodeBase64(claim.identitySigningKey),
      dhKey: encodeBase64(claim.identityDHKey),
      publicKey: encodeBase64(logPublicKey),
      durationMs,
    };
    const count = await page.evaluate(async (args) => {
      const kt = await import(`${location.origin}/kt-verify.browser.js`);
      const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
      const proof = kt.parseKtProof(args.proof);
      const claim = {
        type: "inclusion",
        identitySigningKey: b64(args.signingKey),
        identityDHKey: b64(args.dhKey),
      };
      const publicKey = b64(args.publicKey);
      const once = async () => {
        await kt.verifySthSignature(proof.sth, publicKey);
        kt.verifyKtProofBody(args.address, proof, claim);
      };
      for (let i = 0; i < 20; i++) await once();
      let n = 0;
      const started = performance.now();
      while (performance.now() - started < args.durationMs) {
        await once();
        n++;
      }
      return n / ((performance.now() - started) / 1000);
    }, input);
    return { opsPerSec: count, msPerProof: 1000 / count };
  } finally {
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
  }
}
