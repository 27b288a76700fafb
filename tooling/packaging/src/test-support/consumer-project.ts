import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT, type WorkspacePackage } from "../publishable.js";

/** execFile as a promise; a failure carries the child's stdout and stderr. */
export const run = promisify(execFile);

/** npm's cache, kept between runs, so that only the first run downloads the dependencies. */
const NPM_CACHE = join(tmpdir(), "svc-packaging-npm-cache");

export interface ConsumerProject {
  /** A project outside the workspace with every tarball installed by npm. */
  dir: string;
  /** The files in each package's tarball, by package name. */
  packedFiles: Map<string, string[]>;
  remove(): Promise<void>;
}

/**
 * Packs each package with npm, as the issue of publishing asks (the packages' prepack step,
 * tooling/packaging/pack-manifest.mjs, rewrites workspace: and catalog: ranges and applies
 * publishConfig.exports, which npm knows nothing of), then installs all the tarballs at once with npm, with `dependencies` beside
 * them, into a new project in the system's temporary directory.
 */
export async function createConsumerProject(
  packages: readonly WorkspacePackage[],
  dependencies: Record<string, string>,
): Promise<ConsumerProject> {
  const root = await mkdtemp(join(tmpdir(), "svc-packaging-"));
  try {
    const packed = join(root, "packed");
    const packedFiles = new Map<string, string[]>();
    const tarballs: Record<string, string> = {};
    for (const pkg of packages) {
      await mkdir(packed, { recursive: true });
      const { stdout } = await run(
        "npm",
        ["pack", "--json", "--loglevel=error", "--pack-destination", packed],
        { cwd: pkg.dir, env: npmEnvironment() },
      );
      const [{ filename: name }] = JSON.parse(stdout) as [{ filename: string }];
      const filename = join(packed, name);
      const listing = (await run("tar", ["-tzf", filename])).stdout;
      const files = listing.split("\n").filter((line) => line !== "");
      packedFiles.set(
        pkg.manifest.name,
        files.map((file) => file.replace(/^package\//, "")).sort(),
      );
      tarballs[pkg.manifest.name] = `file:${filename}`;
    }
    const dir = join(root, "project");
    await mkdir(dir);
    const manifest = {
      private: true,
      type: "module",
      dependencies: { ...tarballs, ...dependencies },
    };
    await writeFile(join(dir, "package.json"), JSON.stringify(manifest, null, 2));
    await run(
      "npm",
      ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"],
      { cwd: dir, env: npmEnvironment() },
    );
    return { dir, packedFiles, remove: () => rm(root, { recursive: true, force: true }) };
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}

/** The version that pnpm-workspace.yaml's catalog gives `name`. */
export async function catalogVersion(name: string): Promise<string> {
  const text = await readFile(join(REPO_ROOT, "pnpm-workspace.yaml"), "utf8");
  const quoted = name.replace(/[/@.-]/g, (c) => `\\${c}`);
  const version = new RegExp(`^\\s+"?${quoted}"?:\\s*(\\S+)\\s*$`, "m").exec(text)?.[1];
  if (version === undefined) throw new Error(`${name} is not in the catalog`);
  return version;
}

/**
 * This environment without the npm_* variables that pnpm gives its scripts (the workspace's
 * settings are not the consumer's) but the registry, and with the shared cache.
 */
function npmEnvironment(): NodeJS.ProcessEnv {
  const kept = ([name]: [string, unknown]) =>
    !name.startsWith("npm_") || name === "npm_config_registry";
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(kept)),
    npm_config_cache: NPM_CACHE,
  };
}
