import { join } from "node:path";
import { createTestStorage, until } from "@svc/db/testing";
import { migrations } from "@svc/prekey-server";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "./exit.js";
import { built, spawnSvc as spawnIn } from "./test-support/processes.js";
import { type Closer, startTestServer, svc, tempDir } from "./test-support/server.js";

const closers: Closer[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const spawnSvc = (argv: string[], env: Record<string, string> = {}) => spawnIn(closers, argv, env);

describe.skipIf(!built)("the svc binary (dist/, after pnpm build)", () => {
  beforeAll(async () => (await createTestStorage({ migrations })).close());

  it("prints its usage, exits 2 on a usage error and 5 without an identity", async () => {
    const help = spawnSvc(["--help"]);
    expect(await help.exited).toBe(EXIT.ok);
    expect(help.out.stdout).toMatch(/^usage: svc \[options\] <command>[\s\S]*exit status: 0 ok/);

    const usage = spawnSvc(["send"]);
    expect(await usage.exited).toBe(EXIT.usage);
    expect(usage.out.stderr).toMatch(/^svc: svc send takes <address> <text>\n\nusage: svc send/);

    const home = await tempDir(closers, "svc-bin-none-");
    const none = spawnSvc(["whoami", "--json"], { SVC_HOME: home });
    expect(await none.exited).toBe(EXIT.identity);
    expect(none.out.stdout).toBe("");
    expect(JSON.parse(none.out.stderr)).toMatchObject({ error: "NO_IDENTITY" });
  });

  it("listens until SIGTERM, printing what another home sends, then exits 0", async () => {
    const { url } = await startTestServer(closers);
    const homes = await tempDir(closers, "svc-bin-homes-");
    const env = { SVC_SERVER: url, SVC_HOME: join(homes, "bob") };
    const init = spawnSvc(["init", "--address", "bob:1"], env);
    expect(await init.exited).toBe(EXIT.ok);
    await svc(url, join(homes, "alice"), ["init", "--address", "alice:1"]);
    await svc(url, join(homes, "alice"), ["send", "bob:1", "queued"]);

    const listening = spawnSvc(["listen"], env);
    await until(() => listening.out.stdout.includes("alice:1: queued\n"), 15_000);
    await until(() => listening.out.stderr.includes("svc: listening as bob:1"), 15_000);
    await svc(url, join(homes, "alice"), ["send", "bob:1", "live"]);
    await until(() => listening.out.stdout.includes("alice:1: live\n"), 15_000);
    listening.child.kill("SIGTERM");
    expect(await listening.exited).toBe(EXIT.ok);
    expect(listening.out.stdout).toBe("alice:1: queued\nalice:1: live\n");
    // stderr is not a terminal here: no spinner, only the status line.
    expect(listening.out.stderr).toMatch(/^svc: listening as bob:1 \((ws|sse|poll) bridge\)\n$/);
  });
});
