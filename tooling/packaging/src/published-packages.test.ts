import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { browserRequired, chromiumMissing, launchBrowser } from "@svc/browser-harness";
import { startTestServer } from "@svc/test-server";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PackageManifest, publishablePackages, REPO_ROOT } from "./publishable.js";
import { readmeExamples } from "./readme-examples.js";
import {
  type ConsumerProject,
  catalogVersion,
  createConsumerProject,
  run,
} from "./test-support/consumer-project.js";
import { bundleForBrowser, runInPage, runOnNode } from "./test-support/run-example.js";

/**
 * What a consumer outside the workspace gets: every publishable package packed by npm and
 * installed by npm into one project in the system's temporary directory, where each README
 * example must typecheck against the packed declarations and print exactly the output its README
 * shows, on Node and, where marked, bundled by esbuild in headless Chromium. Without Chromium the
 * browser runs skip, except in CI (CI or SVC_REQUIRE_BROWSER=1), where they fail.
 */
const packages = publishablePackages();
const examples = packages.flatMap((pkg) =>
  readmeExamples(readFileSync(join(pkg.dir, "README.md"), "utf8")).map((example, index) => ({
    ...example,
    id: `${basename(pkg.path)}-${index + 1}`,
    where: `${pkg.path}/README.md:${example.line}`,
  })),
);

const missing = chromiumMissing();
const inBrowser = missing === undefined || browserRequired();
if (!inBrowser) {
  console.warn(`browser runs skipped: ${missing}; CI=1 or SVC_REQUIRE_BROWSER=1 fails instead`);
}

let project: ConsumerProject;
let browser: Promise<Browser> | undefined;

beforeAll(async () => {
  project = await createConsumerProject(packages, {
    hono: await catalogVersion("hono"),
    "@types/node": await catalogVersion("@types/node"),
  });
  await mkdir(join(project.dir, "examples"));
  for (const example of examples) {
    await writeFile(join(project.dir, "examples", `${example.id}.ts`), example.code);
  }
}, 300_000);

afterAll(async () => {
  await (await browser?.catch(() => undefined))?.close();
  await project?.remove();
});

describe.each(packages)("$manifest.name, packed", (pkg) => {
  const installed = () => join(project.dir, "node_modules", pkg.manifest.name);

  it("holds dist, README and LICENSE, and no tests", async () => {
    const files = project.packedFiles.get(pkg.manifest.name) ?? [];
    expect(files).toEqual(expect.arrayContaining(["package.json", "README.md", "LICENSE"]));
    expect(files.filter((file) => /\.test\.|test-support|src\/fixtures/.test(file))).toEqual([]);
    expect(await readFile(join(installed(), "LICENSE"), "utf8")).toBe(
      await readFile(join(REPO_ROOT, "LICENSE"), "utf8"),
    );
  });

  it("depends on real versions and exports dist files only", async () => {
    const manifest = JSON.parse(
      await readFile(join(installed(), "package.json"), "utf8"),
    ) as PackageManifest;
    for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
      const workspace = packages.find((other) => other.manifest.name === name);
      expect(range).toEqual(
        workspace ? `^${workspace.manifest.version}` : expect.stringMatching(/^\d/),
      );
    }
    for (const conditions of Object.values(manifest.exports ?? {})) {
      expect(Object.keys(conditions)).toEqual(["types", "default"]);
      for (const target of Object.values(conditions)) {
        expect(target).toMatch(/^\.\/dist\//);
        expect(existsSync(join(installed(), target)), target).toBe(true);
      }
    }
  });

  it("has source maps whose sources it ships", () => {
    const files = project.packedFiles.get(pkg.manifest.name) ?? [];
    for (const map of files.filter((file) => file.endsWith(".js.map"))) {
      const { sources } = JSON.parse(readFileSync(join(installed(), map), "utf8")) as {
        sources: string[];
      };
      for (const source of sources) {
        expect(files, `${map} names ${source}`).toContain(
          join(dirname(map), source).replace(/^\.\//, ""),
        );
      }
    }
  });
});

describe("the svc binary, installed from its tarball outside the workspace", () => {
  /** What npx needs: a home for its cache, and no notice of npm's own updates on stderr. */
  const npxEnv = () => ({
    PATH: process.env.PATH,
    HOME: project.dir,
    npm_config_update_notifier: "false",
  });
  /** `npx --offline svc <argv>` in the consumer project, as a user of the package runs it. */
  const npxSvc = (argv: string[], env: Record<string, string> = {}) =>
    run("npx", ["--offline", "--no-install", "svc", ...argv], {
      cwd: project.dir,
      env: { ...npxEnv(), ...env },
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({
        code: error.code,
        stdout: error.stdout ?? "",
        stderr: error.stderr ?? "",
      }),
    );

  it("answers --help and --version with exit 0", async () => {
    const help = await npxSvc(["--help"]);
    expect(help).toMatchObject({ code: 0, stderr: "" });
    expect(help.stdout).toMatch(/^usage: svc \[options\] <command>/);
    expect(help.stdout).toMatch(
      /\n {2}transfer send\|receive .*\n[\s\S]*\n {2}kt monitor\|witness /,
    );
    const cli = packages.find((pkg) => pkg.manifest.name === "@svc/cli");
    expect(await npxSvc(["--version"])).toEqual({
      code: 0,
      stdout: `${cli?.manifest.version}\n`,
      stderr: "",
    });
    const usage = await npxSvc(["frobnicate"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^svc: unknown command: frobnicate\n/);
  });

  it("registers an identity with svc init against a prekey server, and its aliases run", async () => {
    const server = await startTestServer();
    try {
      const home = join(project.dir, "home-alice");
      const init = await npxSvc(["init", "--address", "alice:1", "--json"], {
        SVC_SERVER: server.url,
        SVC_HOME: home,
      });
      expect(init).toMatchObject({ code: 0, stderr: "" });
      expect(JSON.parse(init.stdout)).toMatchObject({ address: "alice:1" });
      const whoami = await npxSvc(["whoami"], { SVC_HOME: home, SVC_SERVER: server.url });
      expect(whoami).toMatchObject({ code: 0, stderr: "" });
      expect(whoami.stdout).toMatch(/^address: alice:1\n/);
    } finally {
      await server.stop();
    }
    const alias = await run("npx", ["--offline", "--no-install", "svc-kt", "--help"], {
      cwd: project.dir,
      env: npxEnv(),
    });
    expect(alias).toMatchObject({
      stdout: expect.stringMatching(/^usage: svc-kt monitor/),
      stderr: "",
    });
  });

  it("says where svc db move runs: with the server's tables, which ship with the server", async () => {
    const moved = await npxSvc([
      "db",
      "move",
      "--from",
      join(project.dir, "no-data"),
      "--to",
      "postgres://127.0.0.1:1/none",
    ]);
    expect(moved).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "svc: error: svc db move needs the prekey server's tables (@svc/server-schema): run it where the server is installed\n",
    });
    const json = await npxSvc(["db", "move", "--from", join(project.dir, "no-data"), "--json"], {
      DATABASE_URL: "postgres://127.0.0.1:1/none",
    });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toEqual({
      error: "SERVER_TABLES_MISSING",
      message:
        "svc db move needs the prekey server's tables (@svc/server-schema): run it where the server is installed",
    });
  });
});

it("typechecks every README example against the packed declarations", async () => {
  const tsconfig = {
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      lib: ["ES2023", "DOM"],
      types: ["node"],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    },
    include: ["examples/*.ts"],
  };
  await writeFile(join(project.dir, "tsconfig.json"), JSON.stringify(tsconfig));
  const tsc = resolve(REPO_ROOT, "node_modules/typescript/bin/tsc");
  const errors = await run(process.execPath, [tsc, "-p", project.dir]).then(
    () => "",
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
  expect(errors).toBe("");
});

describe.each(examples)("$where", (example) => {
  if (example.runtimes.includes("node")) {
    it("prints its output on Node", async () => {
      const server = example.needsServer ? await startTestServer() : undefined;
      try {
        const env: Record<string, string> = server ? { SVC_SERVER: server.url } : {};
        expect(await runOnNode(project.dir, example.id, example.code, env)).toBe(example.output);
      } finally {
        await server?.stop();
      }
    });
  }

  if (example.runtimes.includes("browser")) {
    it.runIf(inBrowser)("prints its output in Chromium, bundled by esbuild", async () => {
      browser ??= launchBrowser();
      const bundle = await bundleForBrowser(project.dir, example.code);
      const server = example.needsServer ? await startTestServer() : undefined;
      try {
        expect(await runInPage(await browser, bundle, server?.url)).toBe(example.output);
      } finally {
        await server?.stop();
      }
    });
  }
});
