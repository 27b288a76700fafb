import {
  bundleForBrowser,
  chromiumMissing,
  launchChromium,
  PAGE_ORIGIN,
  portablePackages,
} from "@svc/browser-harness";
import { encodeBase64 } from "@svc/canonical";
import { type KtClaim, type KtProof, ktProofToJson } from "@svc/kt-verify";

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
  if (chromiumMissing() !== undefined) return undefined;
  const ktVerify = portablePackages().find((pkg) => pkg.name === "kt-verify");
  if (ktVerify === undefined) throw new Error("packages/kt-verify is not a portable package");
  const { code } = await bundleForBrowser(ktVerify.entry);
  const chromium = await launchChromium();
  try {
    const page = await chromium.openPage({
      "/kt-verify.browser.js": { contentType: "text/javascript", body: code },
    });
    const input = {
      bundleUrl: `${PAGE_ORIGIN}/kt-verify.browser.js`,
      proof: ktProofToJson(proof),
      address,
      signingKey: encodeBase64(claim.identitySigningKey),
      dhKey: encodeBase64(claim.identityDHKey),
      publicKey: encodeBase64(logPublicKey),
      durationMs,
    };
    const count = await page.evaluate(async (args) => {
      const kt: typeof import("@svc/kt-verify") = await import(args.bundleUrl);
      const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
      const proof = kt.parseKtProof(args.proof);
      const claim = {
        type: "inclusion" as const,
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
    await chromium.close();
  }
}
