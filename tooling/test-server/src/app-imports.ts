import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

const MANIFEST_FIELDS = [
  "dependencies",
  "devDependencies",
  "peerDependencies",
  "optionalDependencies",
] as const;
const SOURCE = /\.(?:[cm]?[jt]s|tsx)$/;

/**
 * Every place where a package of `root` (packages/*) depends on an app (apps/*): a dependency
 * of its package.json, or a source file that names an app's package in a string (an import, a
 * dynamic import, import.meta.resolve). Libraries are tested against @svc/test-server instead.
 */
export async function appImports(root: string): Promise<string[]> {
  const apps = new Set<string>();
  for (const dir of await subdirectories(join(root, "apps"))) {
    const manifest = await readManifest(dir);
    if (manifest?.name) apps.add(manifest.name);
  }
  const quoted = new RegExp(
    `["'\`](${[...apps].map(escapeRegExp).join("|")})(?:/[^"'\`]*)?["'\`]`,
    "g",
  );
  const found: string[] = [];
  for (const dir of await subdirectories(join(root, "packages"))) {
    const manifest = await readManifest(dir);
    if (manifest === undefined) continue;
    const where = relative(root, join(dir, "package.json"));
    for (const field of MANIFEST_FIELDS) {
      for (const name of Object.keys(manifest[field] ?? {})) {
        if (apps.has(name)) found.push(`${where}: ${field} has ${name}`);
      }
    }
    if (apps.size === 0) continue;
    for (const file of await sourceFiles(dir)) {
      const text = await readFile(file, "utf8");
      for (const match of text.matchAll(quoted)) {
        found.push(`${relative(root, file)}: imports ${match[1]}`);
      }
    }
  }
  return found;
}

type Manifest = { name?: string } & Partial<
  Record<(typeof MANIFEST_FIELDS)[number], Record<string, string>>
>;

async function readManifest(dir: string): Promise<Manifest | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as Manifest;
  } catch {
    return undefined;
  }
}

async function subdirectories(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(dir, entry.name))
    .sort();
}

/** The package's source files, its dependencies and build output left out. */
async function sourceFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    if (entry.name === "node_modules" || entry.name === "dist") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await sourceFiles(path)));
    else if (SOURCE.test(entry.name)) files.push(path);
  }
  return files;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
