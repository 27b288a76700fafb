import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root: this file is in tooling/packaging/src, or dist once built. */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The license of every published package; their prepack step copies the root LICENSE in. */
export const LICENSE = "Apache-2.0";

export interface PackageManifest {
  name: string;
  version: string;
  private?: boolean;
  description?: string;
  license?: string;
  repository?: { type?: string; url?: string; directory?: string };
  engines?: { node?: string };
  exports?: Record<string, Record<string, string>>;
  publishConfig?: {
    access?: string;
    provenance?: boolean;
    exports?: Record<string, Record<string, string>>;
  };
  files?: string[];
  dependencies?: Record<string, string>;
}

export interface WorkspacePackage {
  /** Its directory relative to the root, e.g. "packages/kt-verify". */
  path: string;
  dir: string;
  manifest: PackageManifest;
}

/** Every package under packages/ (or under `folder`), published or not, by directory name. */
export function libraryPackages(
  root: string = REPO_ROOT,
  folder: "packages" | "apps" = "packages",
): WorkspacePackage[] {
  return readdirSync(join(root, folder), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(root, folder, entry.name))
    .filter((dir) => existsSync(join(dir, "package.json")))
    .map((dir) => ({
      path: dir.slice(root.length).replace(/^\/+/, ""),
      dir,
      manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as PackageManifest,
    }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * The packages that `pnpm publish -r` publishes: those not marked private, the libraries and the
 * one app published, `svc` (apps/cli).
 */
export function publishablePackages(root: string = REPO_ROOT): WorkspacePackage[] {
  return [...libraryPackages(root), ...libraryPackages(root, "apps")].filter(
    (pkg) => pkg.manifest.private !== true,
  );
}

/**
 * What keeps a package from being published as docs/releasing.md describes, one sentence each;
 * `published` holds the names of every publishable package, which its @svc dependencies must be.
 */
export function manifestProblems(pkg: WorkspacePackage, published: ReadonlySet<string>): string[] {
  const { manifest: m, path } = pkg;
  const problems: string[] = [];
  const expect = (ok: boolean, problem: string) => {
    if (!ok) problems.push(`${m.name}: ${problem}`);
  };
  expect(/^\d+\.\d+\.\d+$/.test(m.version), "version must be x.y.z");
  expect((m.description ?? "").length > 0, "description is missing");
  expect(m.license === LICENSE, `license must be ${LICENSE}`);
  expect(
    m.repository?.type === "git" && m.repository.directory === path,
    `repository must be {type: "git", directory: "${path}"}`,
  );
  expect(typeof m.engines?.node === "string", "engines.node is missing");
  expect(
    m.publishConfig?.access === "public" && m.publishConfig.provenance === true,
    "publishConfig must have access public and provenance true",
  );
  expect(
    JSON.stringify(m.publishConfig?.exports) === JSON.stringify(withoutSource(m.exports ?? {})),
    "publishConfig.exports must be exports without the source condition",
  );
  const files = m.files ?? [];
  expect(files.includes("dist"), "files must include dist");
  if (files.includes("src")) {
    for (const excluded of ["!src/**/*.test.ts", "!src/test-support", "!src/fixtures"]) {
      expect(files.includes(excluded), `files must exclude ${excluded.slice(1)}`);
    }
  }
  expect(existsSync(join(pkg.dir, "README.md")), "README.md is missing");
  for (const [name, range] of Object.entries(m.dependencies ?? {})) {
    if (!name.startsWith("@svc/")) continue;
    expect(range === "workspace:^", `${name} must be a workspace:^ dependency`);
    expect(published.has(name), `depends on ${name}, which is not publishable`);
  }
  return problems;
}

/** What only matters at release: npm's provenance check needs the repository's real URL. */
export function releaseProblems(pkg: WorkspacePackage): string[] {
  return pkg.manifest.repository?.url
    ? []
    : [`${pkg.manifest.name}: repository.url is not set (docs/releasing.md, "Repository URL")`];
}

/** An exports map as consumers outside the workspace see it: no `source` condition. */
export function withoutSource(
  exports: Record<string, Record<string, string>>,
): Record<string, Record<string, string>> {
  return Object.fromEntries(
    Object.entries(exports).map(([subpath, conditions]) => {
      const { source: _source, ...published } = conditions;
      return [subpath, published];
    }),
  );
}
