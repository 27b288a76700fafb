// The prepack and postpack step of every published package, run by npm pack, pnpm pack and
// pnpm publish alike from the package's directory:
//   node ../../tooling/packaging/pack-manifest.mjs write    package.json as published
//   node ../../tooling/packaging/pack-manifest.mjs restore  the workspace's package.json back
// npm knows neither the workspace: nor the catalog: ranges of pnpm, nor publishConfig.exports:
// without this, `npm pack` made tarballs that npm cannot install. Plain JavaScript, since it runs
// before anything is built.
import {
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The workspace's own package.json while the published one is in its place. */
const KEPT = "package.json.workspace";
const DEPENDENCY_FIELDS = ["dependencies", "optionalDependencies", "peerDependencies"];

function restore() {
  if (existsSync(KEPT)) renameSync(KEPT, "package.json");
  rmSync("LICENSE", { force: true });
}

function write() {
  restore();
  const text = readFileSync("package.json", "utf8");
  const manifest = JSON.parse(text);
  writeFileSync(KEPT, text);
  const versions = workspaceVersions();
  const catalog = catalogVersions();
  for (const field of DEPENDENCY_FIELDS) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      manifest[field][name] = publishedRange(name, range, versions, catalog);
    }
  }
  // A consumer installs none of them, and they name the workspace's own packages.
  delete manifest.devDependencies;
  if (manifest.publishConfig?.exports) {
    manifest.exports = manifest.publishConfig.exports;
    delete manifest.publishConfig.exports;
  }
  writeFileSync("package.json", `${JSON.stringify(manifest, null, 2)}\n`);
  copyFileSync(join(ROOT, "LICENSE"), "LICENSE");
}

function publishedRange(name, range, versions, catalog) {
  if (range.startsWith("workspace:")) {
    const version = versions.get(name);
    if (version === undefined) throw new Error(`${name} is not a workspace package`);
    const wanted = range.slice("workspace:".length);
    if (wanted === "*") return version;
    if (wanted === "^" || wanted === "~") return `${wanted}${version}`;
    return wanted;
  }
  if (range === "catalog:" || range === "catalog:default") {
    const version = catalog.get(name);
    if (version === undefined) throw new Error(`${name} is not in the catalog`);
    return version;
  }
  return range;
}

/** Every workspace package under packages/, by name: its version. */
function workspaceVersions() {
  const versions = new Map();
  for (const entry of readdirSync(join(ROOT, "packages"), { withFileTypes: true })) {
    const path = join(ROOT, "packages", entry.name, "package.json");
    if (!entry.isDirectory() || !existsSync(path)) continue;
    const { name, version } = JSON.parse(readFileSync(path, "utf8"));
    versions.set(name, version);
  }
  return versions;
}

/** The catalog of pnpm-workspace.yaml: one `name: version` line each under `catalog:`. */
function catalogVersions() {
  const versions = new Map();
  const lines = readFileSync(join(ROOT, "pnpm-workspace.yaml"), "utf8").split("\n");
  const start = lines.indexOf("catalog:");
  for (const line of lines.slice(start + 1)) {
    const entry = /^\s+"?([^":\s]+)"?:\s*(\S+)\s*$/.exec(line);
    if (entry === null) break;
    versions.set(entry[1], entry[2].replace(/^"|"$/g, ""));
  }
  return versions;
}

const step = { write, restore }[process.argv[2] ?? ""];
if (step === undefined) {
  console.error("usage: pack-manifest.mjs write | restore");
  process.exit(2);
}
step();
