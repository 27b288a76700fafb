import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root: this file is in tooling/browser/src, or dist once built. */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export interface PortablePackage {
  /** Its directory under packages/, e.g. "kt-verify". */
  name: string;
  dir: string;
  /** packages/<name>/src/index.ts: the public entry a browser imports. */
  entry: string;
  /** False while the package has no src/index.ts yet. */
  hasEntry: boolean;
}

const EXTENDS_PORTABLE = /"extends"\s*:\s*"(?:\.\.\/)+tsconfig\.portable\.json"/;

/**
 * The packages of the portable tier: those whose tsconfig.json extends tsconfig.portable.json,
 * where the tier is declared once. A new portable package is picked up without a list to edit.
 */
export function portablePackages(root: string = REPO_ROOT): PortablePackage[] {
  const packagesDir = join(root, "packages");
  return readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && declaresPortable(join(packagesDir, entry.name)))
    .map((entry) => {
      const dir = join(packagesDir, entry.name);
      const entryFile = join(dir, "src", "index.ts");
      return { name: entry.name, dir, entry: entryFile, hasEntry: existsSync(entryFile) };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

export interface PortableEntry {
  /** The package's directory with the export's subpath: "kt-verify", "protocol/transfer". */
  name: string;
  /** The TypeScript source the export names ("source" condition). */
  entry: string;
}

/** Exports outside the tier: a package's Node-only part (`@svc/client/node`), its test helpers. */
const NOT_PORTABLE_EXPORTS: ReadonlySet<string> = new Set(["./node", "./testing"]);

/**
 * Every entry a browser may import from the portable tier: each export of each package's
 * package.json, such as `@svc/protocol/transfer` beside `@svc/protocol`.
 */
export function portableEntries(root: string = REPO_ROOT): PortableEntry[] {
  return portablePackages(root).flatMap((pkg) => {
    const manifest = JSON.parse(readFileSync(join(pkg.dir, "package.json"), "utf8")) as {
      exports?: Record<string, { source?: string }>;
    };
    return Object.entries(manifest.exports ?? {})
      .filter(
        ([subpath, target]) => !NOT_PORTABLE_EXPORTS.has(subpath) && target.source !== undefined,
      )
      .map(([subpath, target]) => ({
        name: subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`,
        entry: join(pkg.dir, target.source as string),
      }));
  });
}

function declaresPortable(dir: string): boolean {
  const tsconfig = join(dir, "tsconfig.json");
  return existsSync(tsconfig) && EXTENDS_PORTABLE.test(readFileSync(tsconfig, "utf8"));
}
