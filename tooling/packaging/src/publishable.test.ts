import { readFileSync } from "node:fs";
import { join } from "node:path";
import { portablePackages } from "@svc/browser-harness";
import { describe, expect, it } from "vitest";
import {
  manifestProblems,
  publishablePackages,
  REPO_ROOT,
  releaseProblems,
  type WorkspacePackage,
} from "./publishable.js";
import { readmeExamples } from "./readme-examples.js";

/** The packages the "Production" issue asks to publish; the rest are what they depend on. */
const REQUESTED = [
  "@svc/canonical",
  "@svc/merkle",
  "@svc/kt-verify",
  "@svc/ratchet",
  "@svc/client",
  // @svc/transfer-lanes was requested too; its transfer wire is now @svc/protocol/transfer.
  "@svc/protocol",
  "@svc/transfer-peer",
];

const packages = publishablePackages();
const names = new Set(packages.map((pkg) => pkg.manifest.name));

describe("publishable packages", () => {
  it("include the requested ones", () => {
    expect([...names]).toEqual(expect.arrayContaining(REQUESTED));
  });

  it.each(packages)("$manifest.name has a manifest ready to publish", (pkg) => {
    expect(manifestProblems(pkg, names)).toEqual([]);
  });

  it.each(packages)("$manifest.name has a README example for Node", (pkg) => {
    expect(examplesOf(pkg).some((example) => example.runtimes.includes("node"))).toBe(true);
  });

  it("have a README example for browsers where they are portable", () => {
    const portable = new Set(portablePackages().map((pkg) => `packages/${pkg.name}`));
    const withoutBrowserExample = packages
      .filter((pkg) => portable.has(pkg.path))
      .filter((pkg) => !examplesOf(pkg).some((example) => example.runtimes.includes("browser")))
      .map((pkg) => pkg.manifest.name);
    expect(withoutBrowserExample).toEqual([]);
  });
});

describe("manifestProblems", () => {
  const [first] = packages;
  if (first === undefined) throw new Error("no publishable package");
  const edited = (changes: object): WorkspacePackage => ({
    ...first,
    manifest: { ...first.manifest, ...changes },
  });

  it("names an @svc dependency that is not publishable or not a workspace:^ range", () => {
    const problems = manifestProblems(
      edited({ dependencies: { "@svc/prekey-server": "workspace:*" } }),
      names,
    );
    expect(problems).toEqual([
      `${first.manifest.name}: @svc/prekey-server must be a workspace:^ dependency`,
      `${first.manifest.name}: depends on @svc/prekey-server, which is not publishable`,
    ]);
  });

  it("names published exports that differ from the workspace's", () => {
    const problems = manifestProblems(edited({ exports: { ".": { default: "./x.js" } } }), names);
    expect(problems).toEqual([
      `${first.manifest.name}: publishConfig.exports must be exports without the source condition`,
    ]);
  });
});

describe("releaseProblems", () => {
  it("asks for the repository URL, which npm's provenance check compares", () => {
    const pkg = packages[0] as WorkspacePackage;
    const withUrl = (url: string | undefined): WorkspacePackage => ({
      ...pkg,
      manifest: { ...pkg.manifest, repository: { ...pkg.manifest.repository, url } },
    });
    expect(releaseProblems(withUrl(undefined))).toEqual([
      `${pkg.manifest.name}: repository.url is not set (docs/releasing.md, "Repository URL")`,
    ]);
    expect(releaseProblems(withUrl("git+https://example.invalid/svc.git"))).toEqual([]);
  });
});

function examplesOf(pkg: WorkspacePackage) {
  return readmeExamples(readFileSync(join(REPO_ROOT, pkg.path, "README.md"), "utf8"));
}
