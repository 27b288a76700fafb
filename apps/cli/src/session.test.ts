import { join } from "node:path";
import { createTestStorage } from "@svc/db/testing";
import { migrations } from "@svc/prekey-server";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "./exit.js";
import {
  type Closer,
  startDowngradingProxy,
  startTestServer,
  svc,
  tempDir,
} from "./test-support/server.js";

// Migrating the first test database of a file is slow: pay it outside the tests' time limit.
beforeAll(async () => (await createTestStorage({ migrations })).close());

const closers: Closer[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A server (env: its settings) and a function running `svc` in a named home against it. */
async function world(env: Record<string, string> = {}) {
  const { url } = await startTestServer(closers, env);
  const root = await tempDir(closers, "svc-cli-session-");
  const homeOf = (name: string) => join(root, name);
  return {
    url,
    homeOf,
    as: (name: string, ...argv: string[]) => svc(url, homeOf(name), argv),
    via: (server: string, name: string, ...argv: string[]) => svc(server, homeOf(name), argv),
  };
}

const parse = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

describe("svc session and post-quantum sessions", () => {
  it("two PQXDH peers: svc session says postQuantum on both sides; none before a message (exit 1)", async () => {
    const { as, homeOf } = await world();
    await as("alice", "init", "--address", "alice:1");
    await as("bob", "init", "--address", "bob:1");

    expect(await as("alice", "session", "bob:1")).toEqual({
      code: EXIT.failure,
      stdout: [],
      stderr: [
        "svc: error: there is no session with bob:1 yet: the first message sent to or received from bob:1 sets one up",
      ],
    });
    expect(parse((await as("alice", "session", "bob:1", "--json")).stderr)).toEqual([
      {
        error: "NO_SESSION",
        message:
          "there is no session with bob:1 yet: the first message sent to or received from bob:1 sets one up",
      },
    ]);

    expect(await as("alice", "send", "bob:1", "hi")).toMatchObject({ code: EXIT.ok, stderr: [] });
    expect((await as("bob", "listen", "--drain")).stdout).toEqual(["alice:1: hi"]);
    expect(await as("alice", "session", "bob:1", "--json")).toEqual({
      code: EXIT.ok,
      stdout: ['{"address":"bob:1","postQuantum":true}'],
      stderr: [],
    });
    expect(await as("bob", "session", "alice:1", "--json")).toEqual({
      code: EXIT.ok,
      stdout: ['{"address":"alice:1","postQuantum":true}'],
      stderr: [],
    });
    expect((await as("bob", "session", "alice:1")).stdout).toEqual([
      "alice:1: post-quantum session (PQXDH: X25519 and ML-KEM-1024)",
    ]);
    expect(await as("nobody", "session", "bob:1")).toMatchObject({
      code: EXIT.identity,
      stderr: [
        `svc: error: ${homeOf("nobody")} holds no identity; run svc init --address <address>`,
      ],
    });
  });

  it("session takes exactly one address", async () => {
    const { as } = await world();
    for (const argv of [["session"], ["session", "a:1", "b:1"]]) {
      const run = await as("alice", ...argv);
      expect(run.code).toBe(EXIT.usage);
      expect(run.stderr[0]).toMatch(
        /^svc: svc session takes <address>\n\nusage: svc session <address>/,
      );
    }
    const help = await as("alice", "session", "--help");
    expect(help.code).toBe(EXIT.ok);
    expect(help.stdout[0]).toMatch(/^usage: svc session <address> \[options\]\n/);
    expect(help.stdout[0]).toContain('--json: {"address","postQuantum"}');
  });

  it("refuses a bundle stripped of the ML-KEM prekey its KT leaf commits: exit 3, PQ_DOWNGRADE", async () => {
    const { url, as, via } = await world();
    await as("bob", "init", "--address", "bob:1");
    await as("alice", "init", "--address", "alice:1");
    const proxy = await startDowngradingProxy(url, closers);
    const refused = await via(proxy.url, "alice", "send", "bob:1", "hi", "--json");
    expect(refused.code).toBe(EXIT.verification);
    expect(refused.stdout).toEqual([]);
    expect(parse(refused.stderr)).toEqual([
      {
        error: "PQ_DOWNGRADE",
        message:
          "the bundle of bob:1 carries no ML-KEM prekey, but its key-transparency leaf commits one: refused rather than fall back to classic X3DH; the server may be trying to strip post-quantum protection (svc kt verify shows what the log commits)",
      },
    ]);
    expect((await as("alice", "session", "bob:1")).code).toBe(EXIT.failure);
  });

  it("with --no-kt, refuses a bundle without ML-KEM prekey of a peer once seen with one", async () => {
    const { url, as, via } = await world({ SVC_KT: "off" });
    await as("bob", "init", "--address", "bob:1", "--no-kt");
    await as("alice", "init", "--address", "alice:1", "--no-kt");
    expect(await as("alice", "send", "bob:1", "hi", "--no-kt")).toMatchObject({ code: EXIT.ok });
    const proxy = await startDowngradingProxy(url, closers);
    const refused = await via(proxy.url, "alice", "trust", "bob:1", "--no-kt");
    expect(refused).toEqual({
      code: EXIT.verification,
      stdout: [],
      stderr: [
        "svc: error: the bundle of bob:1 carries no ML-KEM prekey, but it was served with an ML-KEM prekey before, under the same identity keys: refused rather than fall back to classic X3DH; the server may be trying to strip post-quantum protection (svc kt verify shows what the log commits)",
      ],
    });
    // A new peer never seen with one is taken as classic: carol has no record of bob.
    await as("carol", "init", "--address", "carol:1", "--no-kt");
    expect(await via(proxy.url, "carol", "send", "bob:1", "hi", "--no-kt")).toMatchObject({
      code: EXIT.ok,
    });
    expect(parse((await as("carol", "session", "bob:1", "--json")).stdout)).toEqual([
      { address: "bob:1", postQuantum: false },
    ]);
    expect((await as("bob", "listen", "--drain", "--no-kt")).stdout).toEqual([
      "alice:1: hi",
      "carol:1: hi",
    ]);
    expect((await as("bob", "session", "carol:1")).stdout).toEqual([
      "carol:1: classic session (X3DH: X25519 only)",
    ]);
  });
});
