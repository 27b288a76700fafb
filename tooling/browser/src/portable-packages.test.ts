import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type BrowserBundle, bundleForBrowser } from "./bundle.js";
import {
  browserRequired,
  type ChromiumSession,
  chromiumMissing,
  launchChromium,
} from "./chromium.js";
import {
  type PortableEntry,
  portableEntries,
  portablePackages,
  REPO_ROOT,
} from "./portable-packages.js";
import { SMOKE_CHECKS } from "./test-support/smoke-checks.js";

/**
 * Each portable package's public entry, bundled by esbuild for the browser with no Node built-in
 * reachable, loads in headless Chromium and passes its smoke check there. Without Chromium the
 * page checks skip, saying why, except in CI (CI or SVC_REQUIRE_BROWSER=1), where they fail.
 */
const packages = portablePackages();
const entries = portableEntries();
for (const pkg of packages.filter((p) => !p.hasEntry)) {
  console.warn(`portable package ${pkg.name} has no src/index.ts yet: not bundled`);
}

const missing = chromiumMissing();
const inBrowser = missing === undefined || browserRequired();
if (!inBrowser) {
  console.warn(
    `browser checks skipped: ${missing}; CI=1 or SVC_REQUIRE_BROWSER=1 makes this a failure`,
  );
}

let session: Promise<ChromiumSession> | undefined;
afterAll(async () => {
  await (await session?.catch(() => undefined))?.close();
});

const bundles = new Map<string, Promise<BrowserBundle>>();
function bundleOf(pkg: PortableEntry): Promise<BrowserBundle> {
  let bundle = bundles.get(pkg.name);
  if (bundle === undefined) {
    bundle = bundleForBrowser(pkg.entry);
    bundles.set(pkg.name, bundle);
  }
  return bundle;
}

describe("portable tier", () => {
  it("holds at least canonical, kt-verify and merkle", () => {
    expect(packages.map((pkg) => pkg.name)).toEqual(
      expect.arrayContaining(["canonical", "kt-verify", "merkle"]),
    );
  });

  it("is where biome refuses Node modules (biome.jsonc), source but not tests", async () => {
    const text = await readFile(join(REPO_ROOT, "biome.jsonc"), "utf8");
    const biome = JSON.parse(text.replace(/^\s*\/\/.*$/gm, "")) as BiomeConfig;
    const override = biome.overrides?.find(
      (o) => o.linter?.rules?.correctness?.noNodejsModules === "error",
    );
    expect(override?.includes.filter((glob) => !glob.startsWith("!"))).toEqual(
      packages.map((pkg) => `packages/${pkg.name}/src/**`),
    );
    expect(override?.includes).toEqual(expect.arrayContaining(["!**/*.test.ts"]));
  });

  it("has a smoke check for every entry", () => {
    expect(entries.map((pkg) => pkg.name).filter((name) => !(name in SMOKE_CHECKS))).toEqual([]);
  });

  it("bundles each export of a package, subpaths included", () => {
    expect(entries.map((pkg) => pkg.name)).toEqual(
      expect.arrayContaining(["protocol", "protocol/transfer"]),
    );
  });
});

describe("bundleForBrowser", () => {
  it("fails on a Node built-in, naming it and its importer", async () => {
    const entry = new URL("./test-support/imports-node-crypto.ts", import.meta.url).pathname;
    await expect(bundleForBrowser(entry)).rejects.toThrow(
      /Node built-in "node:crypto" imported by tooling\/browser\/src\/test-support\/imports-node-crypto\.ts/,
    );
  });
});

describe.each(entries)("$name", (pkg) => {
  it("bundles for the browser without reaching a Node built-in", async () => {
    const { code } = await bundleOf(pkg);
    expect(code).not.toMatch(/\bfrom\s*["']node:/);
  });

  it.runIf(inBrowser)("loads in headless Chromium and passes its smoke check", async () => {
    session ??= launchChromium();
    const chromium = await session;
    const check = SMOKE_CHECKS[pkg.name];
    if (check === undefined) throw new Error(`no smoke check for ${pkg.name}`);
    const [{ code }, input] = await Promise.all([bundleOf(pkg), check.input()]);
    const page = await chromium.openPage({
      [`/${pkg.name}.js`]: { contentType: "text/javascript", body: code },
    });
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    try {
      // A string, so that vitest leaves this import() alone: it runs in the page.
      const module = await page.evaluateHandle(`import("/${pkg.name}.js")`);
      const exported = await module.evaluate(
        (namespace) => Object.keys(namespace as object).length,
      );
      expect(exported).toBeGreaterThan(0);
      expect(await module.evaluate(check.inPage, input)).toEqual(check.expected(input));
      expect(await page.evaluate(() => [typeof process, typeof Buffer, typeof require])).toEqual([
        "undefined",
        "undefined",
        "undefined",
      ]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

interface BiomeConfig {
  overrides?: {
    includes: string[];
    linter?: { rules?: { correctness?: { noNodejsModules?: string } } };
  }[];
}
