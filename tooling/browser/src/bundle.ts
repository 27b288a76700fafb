import { isBuiltin } from "node:module";
import { relative } from "node:path";
import { build, type Plugin } from "esbuild";
import { REPO_ROOT } from "./portable-packages.js";

export interface BrowserBundle {
  /** One ES module with every dependency inlined (inline source map). */
  code: string;
  /**
   * Node built-ins that a dependency's package.json "browser" field maps away, so the browser
   * never reaches them (tweetnacl's guarded require("crypto") is one).
   */
  mappedAway: string[];
}

/**
 * Bundles `entry` (a TypeScript entry, workspace packages read through their "source" export)
 * for browsers with esbuild. Fails, naming the importer, when the module graph reaches a Node
 * built-in, with the node: prefix or without ("crypto", "fs/promises").
 */
export async function bundleForBrowser(entry: string): Promise<BrowserBundle> {
  const mappedAway: string[] = [];
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["source"],
    sourcemap: "inline",
    logLevel: "silent",
    plugins: [refuseNodeBuiltins(mappedAway)],
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error(`esbuild wrote nothing for ${entry}`);
  return { code: output.text, mappedAway };
}

/** Marks the plugin's own look-ups, so that they reach esbuild's resolver and not the plugin. */
const OWN_LOOKUP = { refuseNodeBuiltins: true };

function refuseNodeBuiltins(mappedAway: string[]): Plugin {
  return {
    name: "refuse-node-builtins",
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === OWN_LOOKUP || !isBuiltin(args.path)) return undefined;
        const importer = relative(REPO_ROOT, args.importer) || "the entry";
        // esbuild resolves a built-in for the browser only where the importing package's
        // "browser" field maps it to another file or to nothing.
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: OWN_LOOKUP,
        });
        if (resolved.errors.length === 0) {
          mappedAway.push(`${args.path} in ${importer}`);
          return undefined;
        }
        return {
          errors: [
            {
              text: `Node built-in "${args.path}" imported by ${importer}: portable packages run in browsers`,
            },
          ],
        };
      });
    },
  };
}
