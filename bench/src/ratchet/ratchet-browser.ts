import { fileURLToPath } from "node:url";
import {
  bundleForBrowser,
  chromiumMissing,
  launchChromium,
  PAGE_ORIGIN,
} from "@svc/browser-harness";
import type { RatchetRates, RatchetTiming } from "./workloads.js";

/** workloads.ts, bundled from source whether this file runs from src or from dist. */
const WORKLOADS = fileURLToPath(
  new URL(
    import.meta.url.endsWith(".ts") ? "./workloads.ts" : "../../src/ratchet/workloads.ts",
    import.meta.url,
  ),
);

/**
 * The ratchet workloads and their bounds in headless Chromium: workloads.ts and @svc/ratchet
 * (its source, as a page would bundle it) in one ES module, timed inside the page, wall clock
 * only. Undefined without Chromium.
 */
export async function chromiumRatchetRates(
  timing: Omit<RatchetTiming, "cpuMs">,
): Promise<RatchetRates | undefined> {
  if (chromiumMissing() !== undefined) return undefined;
  const { code } = await bundleForBrowser(WORKLOADS);
  const chromium = await launchChromium();
  try {
    const page = await chromium.openPage({
      "/ratchet-bench.js": { contentType: "text/javascript", body: code },
    });
    return await page.evaluate(
      async (args) => {
        const bench: typeof import("./workloads.js") = await import(args.bundleUrl);
        return bench.measureRatchet(args.timing);
      },
      { bundleUrl: `${PAGE_ORIGIN}/ratchet-bench.js`, timing },
    );
  } finally {
    await chromium.close();
  }
}
