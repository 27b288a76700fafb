import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { appImports } from "./app-imports.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function workspace(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "svc-app-imports-"));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, ".."), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

describe("no package depends on an app", () => {
  it("holds for this workspace: packages/* neither list nor import anything of apps/*", async () => {
    expect(await appImports(ROOT)).toEqual([]);
  });

  it("finds an app in a package's manifest and in its sources, build output left out", async () => {
    const root = await workspace({
      "apps/server/package.json": JSON.stringify({ name: "@x/server" }),
      "packages/lib/package.json": JSON.stringify({
        name: "@x/lib",
        dependencies: { "@x/other": "1" },
        devDependencies: { "@x/server": "workspace:*" },
      }),
      "packages/lib/src/a.test.ts": 'import { start } from "@x/server";\n',
      "packages/lib/src/b.ts": "const m = import.meta.resolve('@x/server/main');\n",
      "packages/lib/src/c.ts": 'import { x } from "@x/server-kit";\n',
      "packages/lib/dist/a.js": 'import "@x/server";\n',
    });
    expect(await appImports(root)).toEqual([
      "packages/lib/package.json: devDependencies has @x/server",
      "packages/lib/src/a.test.ts: imports @x/server",
      "packages/lib/src/b.ts: imports @x/server",
    ]);
  });
});
