import { fileURLToPath } from "node:url";
import {
  bundleForBrowser,
  chromiumMissing,
  launchChromium,
  PAGE_ORIGIN,
} from "@svc/browser-harness";
import type { SetupRates, SetupTiming } from "./setup.js";

/** setup.ts, bundled from source whether this file runs from src or from dist. */
const SETUP = fileURLToPath(
  new URL(
    import.meta.url.endsWith(".ts") ? "./setup.ts" : "../../src/ratchet/setup.ts",
    import.meta.url,
  ),
);

/** Session setup in headless Chromium, as chromiumRatchetRates does it; undefined without it. */
export async function chromiumSetupRates(
  timing: Omit<SetupTiming, "cpuMs">,
): Promise<SetupRates | undefined> {
  if (chromiumMissing() !== undefined) return undefined;
  const { code } = await bundleForBrowser(SETUP);
  const chromium = await launchChromium();
  try {
    const page = await chromium.openPage({
      "/setup-bench.js": { contentType: "text/javascript", body: code },
    });
    return await page.evaluate(
      async (args) => {
        const bench: typeof import("./setup.js") = await import(args.bundleUrl);
        return bench.measureSetup(args.timing);
      },
      { bundleUrl: `${PAGE_ORIGIN}/setup-bench.js`, timing },
    );
  } finally {
    await chromium.close();
  }
}
