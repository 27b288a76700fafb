import {
  bundleForBrowser,
  chromiumMissing,
  launchChromium,
  PAGE_ORIGIN,
  portablePackages,
} from "@svc/browser-harness";
import { encodeBase64 } from "@svc/canonical";
import type { KtClaim } from "@svc/kt-verify";
import type { WitnessedProof } from "./kt.js";

/**
 * Verifies one full bundle proof (STH signature, a checkpoint cosigned by 2 of 3 policy
 * witnesses, the VRF proof, log inclusion, index map proof) in a loop inside headless Chromium,
 * each time with a new KtVerifier (nothing cached), loading the ESM bundle a page would.
 * Undefined without Chromium.
 */
export async function chromiumVerificationsPerSecond(
  witnessed: WitnessedProof,
  claim: Extract<KtClaim, { type: "inclusion" }>,
  address: string,
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
      proof: witnessed.proof,
      policy: witnessed.policy,
      address,
      signingKey: encodeBase64(claim.identitySigningKey),
      dhKey: encodeBase64(claim.identityDHKey),
      publicKey: encodeBase64(witnessed.logPublicKey),
      vrfPublicKey: encodeBase64(witnessed.vrfPublicKey),
      durationMs,
    };
    const count = await page.evaluate(async (args) => {
      const kt: typeof import("@svc/kt-verify") = await import(args.bundleUrl);
      const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
      const claim = {
        type: "inclusion" as const,
        identitySigningKey: b64(args.signingKey),
        identityDHKey: b64(args.dhKey),
      };
      const logPublicKey = b64(args.publicKey);
      const sth = kt.parseKtProof(args.proof).sth;
      const once = async () => {
        const verifier = new kt.KtVerifier({
          logPublicKey,
          vrfPublicKey: b64(args.vrfPublicKey),
          witnessPolicy: args.policy,
          client: {
            logPublicKey: async () => logPublicKey,
            sth: async () => sth,
            consistency: async () => [],
            leaves: async () => [],
            checkpoint: async () => args.proof.checkpoint as string,
          },
        });
        await verifier.verifyProof(args.address, args.proof, claim);
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
