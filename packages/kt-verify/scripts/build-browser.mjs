// Builds dist/kt-verify.browser.js: one ESM file with @svc/canonical, @svc/merkle, @noble/hashes
// and tweetnacl inlined, for pages that load the verifier with <script type="module">.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export const BROWSER_BUNDLE = fileURLToPath(
  new URL("../dist/kt-verify.browser.js", import.meta.url),
);

export async function buildBrowserBundle() {
  await build({
    entryPoints: [fileURLToPath(new URL("../src/index.ts", import.meta.url))],
    outfile: BROWSER_BUNDLE,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["source"],
    sourcemap: true,
    logLevel: "warning",
  });
  return BROWSER_BUNDLE;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildBrowserBundle();
