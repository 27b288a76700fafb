import { join } from "node:path";
import { createTestStorage, until } from "@svc/db/testing";
import { migrations } from "@svc/prekey-server";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "./exit.js";
import { built, spawnSvc } from "./test-support/processes.js";
import {
  type Closer,
  startRestartableServer,
  startTestServer,
  svc,
  tempDir,
} from "./test-support/server.js";

beforeAll(async () => (await createTestStorage({ migrations })).close());

const closers: Closer[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const lines = (text: string) => text.split("\n").filter(Boolean);

/** A server that can restart, alice and bob registered on it, and bob's home. */
async function pair() {
  const server = await startRestartableServer(closers);
  const homes = await tempDir(closers, "svc-listen-");
  const home = (name: string) => join(homes, name);
  for (const name of ["alice", "bob"]) {
    expect((await svc(server.url, home(name), ["init", "--address", `${name}:1`])).code).toBe(0);
  }
  const aliceSends = async (message: string) =>
    expect((await svc(server.url, home("alice"), ["send", "bob:1", message])).code).toBe(0);
  return { server, aliceSends, bobEnv: { SVC_SERVER: server.url, SVC_HOME: home("bob") } };
}

describe.skipIf(!built)("svc listen and the server going away", () => {
  it("keeps listening through a restart of the server: one line when lost, one when back", async () => {
    const { server, aliceSends, bobEnv } = await pair();
    const listening = spawnSvc(closers, ["listen"], bobEnv);
    await until(() => listening.out.stderr.includes("svc: listening as bob:1"), 30_000);
    await aliceSends("before");
    await until(() => listening.out.stdout.includes("alice:1: before\n"), 15_000);

    await server.stop();
    await until(() => listening.out.stderr.includes("disconnected"), 15_000);
    // Several reconnects fail while the server is away; none of them prints a line.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await server.start();
    await until(() => listening.out.stderr.includes("reconnected"), 30_000);
    await aliceSends("after");
    await until(() => listening.out.stdout.includes("alice:1: after\n"), 15_000);
    expect(listening.child.exitCode).toBeNull();

    listening.child.kill("SIGTERM");
    expect(await listening.exited).toBe(EXIT.ok);
    expect(lines(listening.out.stdout)).toEqual(["alice:1: before", "alice:1: after"]);
    const [connected, lost, back, ...more] = lines(listening.out.stderr);
    expect(connected).toMatch(/^svc: listening as bob:1 \((ws|sse|poll) bridge\)$/);
    expect(lost).toMatch(/^svc: disconnected, retrying: /);
    expect(back).toMatch(/^svc: reconnected \((ws|sse|poll) bridge\)$/);
    expect(more).toEqual([]);
    expect(listening.out.stderr).not.toMatch(/ {4}at /);
  }, 90_000);

  it("--wait waits for a server that is down at start; without it, exit 1 at once", async () => {
    const { server, aliceSends, bobEnv } = await pair();
    await aliceSends("queued");
    await server.stop();

    const refused = spawnSvc(closers, ["listen"], bobEnv);
    expect(await refused.exited).toBe(EXIT.failure);
    expect(refused.out.stdout).toBe("");
    expect(refused.out.stderr).toMatch(
      /^svc: error: cannot reach the server at http:\/\/127\.0\.0\.1:\d+: .* \(svc listen --wait waits for the server\)\n$/,
    );

    const waiting = spawnSvc(closers, ["listen", "--wait"], bobEnv);
    await until(() => waiting.out.stderr.includes("svc: waiting for the server"), 15_000);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await server.start();
    await until(() => waiting.out.stdout.includes("alice:1: queued\n"), 30_000);
    await until(() => waiting.out.stderr.includes("svc: listening as bob:1"), 15_000);
    waiting.child.kill("SIGTERM");
    expect(await waiting.exited).toBe(EXIT.ok);
    expect(lines(waiting.out.stderr)).toEqual([
      expect.stringMatching(/^svc: waiting for the server: cannot reach the server at /),
      expect.stringMatching(/^svc: listening as bob:1 \((ws|sse|poll) bridge\)$/),
    ]);
  }, 90_000);
});

describe("svc listen --drain", () => {
  it("prints what is queued, acknowledges it and exits 0; then nothing is left", async () => {
    const { url } = await startTestServer(closers);
    const homes = await tempDir(closers, "svc-drain-");
    const as = (name: string, ...argv: string[]) => svc(url, join(homes, name), argv);
    await as("alice", "init", "--address", "alice:1");
    await as("bob", "init", "--address", "bob:1");
    for (const message of ["one", "two", "three"]) await as("alice", "send", "bob:1", message);

    expect(await as("bob", "listen", "--drain")).toEqual({
      code: EXIT.ok,
      stdout: ["alice:1: one", "alice:1: two", "alice:1: three"],
      stderr: [],
    });
    expect(await as("bob", "listen", "--drain", "--json")).toEqual({
      code: EXIT.ok,
      stdout: [],
      stderr: [],
    });
    const mixed = await as("bob", "listen", "--drain", "--count", "1");
    expect(mixed.code).toBe(EXIT.usage);
    expect(mixed.stderr[0]).toMatch(/^svc: --drain takes no --count, --timeout or --wait\n/);
  });
});
