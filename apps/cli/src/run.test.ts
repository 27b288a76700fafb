import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Readable } from "node:stream";
import { decodeBase64 } from "@svc/canonical";
import { formatSafetyNumber, identityFingerprint, memoryStore, SvcClient } from "@svc/client";
import { createTestStorage, until } from "@svc/db/testing";
import { migrations } from "@svc/prekey-server";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { USAGE } from "./args.js";
import { EXIT } from "./exit.js";
import { runCli } from "./run.js";
import {
  type Closer,
  startLyingProxy,
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

/** A server and a function running `svc` in a named home against it. */
async function world() {
  const { url } = await startTestServer(closers);
  const root = await tempDir(closers, "svc-cli-homes-");
  const homeOf = (name: string) => join(root, name);
  return {
    url,
    homeOf,
    as: (name: string, ...argv: string[]) => svc(url, homeOf(name), argv),
  };
}

/** A port nothing listens on (fetch refuses some low ports, such as 1, before connecting). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const parse = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

/** The fingerprint (docs/protocol.md §16) of an identity as init --json prints it. */
const fingerprintOf = (identity: Record<string, unknown> | undefined) =>
  identityFingerprint({
    identitySigningKey: decodeBase64(identity?.identitySigningKey as string, 32),
    identityDHKey: decodeBase64(identity?.identityDHKey as string, 32),
  });

describe("svc", () => {
  it("init registers an identity, stored 0600, and refuses to replace it (exit 5)", async () => {
    const { as, homeOf } = await world();
    const first = await as("alice", "init", "--address", "alice:1", "--json");
    expect(first).toMatchObject({ code: EXIT.ok, stderr: [] });
    const [identity] = parse(first.stdout);
    expect(Object.keys(identity ?? {})).toEqual(["address", "identitySigningKey", "identityDHKey"]);
    expect(identity).toMatchObject({ address: "alice:1" });
    expect((await stat(join(homeOf("alice"), "state.json"))).mode & 0o777).toBe(0o600);
    expect((await stat(homeOf("alice"))).mode & 0o777).toBe(0o700);

    for (const address of ["alice:1", "alice:2"]) {
      const again = await as("alice", "init", "--address", address);
      expect(again.code).toBe(EXIT.identity);
      expect(again.stdout).toEqual([]);
      expect(again.stderr).toEqual([
        `svc: error: ${homeOf("alice")}: the store holds the identity of alice:1; svc init never replaces an identity (use another --home)`,
      ]);
    }
    const whoami = await as("alice", "whoami", "--json");
    expect(parse(whoami.stdout)).toEqual([identity]);
  });

  it("whoami prints the address and public keys, and exit 5 on a home without identity", async () => {
    const { as, homeOf } = await world();
    const init = await as("bob", "init", "--address", "bob:1");
    expect(init.stdout[0]).toMatch(
      /^registered keys and inbox:\naddress: bob:1\nidentity signing key \(Ed25519\): [A-Za-z0-9+/]{43}=\nidentity DH key \(X25519\): [A-Za-z0-9+/]{43}=$/,
    );
    const whoami = await as("bob", "whoami");
    expect(whoami).toMatchObject({ code: EXIT.ok, stderr: [] });
    expect(init.stdout[0]).toBe(`registered keys and inbox:\n${whoami.stdout[0]}`);

    for (const argv of [
      ["whoami"],
      ["send", "bob:1", "hi"],
      ["listen"],
      ["keys", "status"],
      ["safety-number", "bob:1"],
      ["trust", "bob:1"],
    ]) {
      const none = await as("nobody", ...argv);
      expect(none, argv.join(" ")).toEqual({
        code: EXIT.identity,
        stdout: [],
        stderr: [
          `svc: error: ${homeOf("nobody")} holds no identity; run svc init --address <address>`,
        ],
      });
    }
    expect(parse((await as("nobody", "whoami", "--json")).stderr)).toEqual([
      { error: "NO_IDENTITY", message: expect.stringContaining("holds no identity") },
    ]);
    expect((await as("nobody", "kt", "verify", "bob:1")).code).toBe(EXIT.ok);
    // None of them made a home: only init does.
    await expect(stat(homeOf("nobody"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("send refuses a peer's changed identity (exit 6, both fingerprints) until svc trust; safety numbers agree", async () => {
    const { url, as, homeOf } = await world();
    await as("alice", "init", "--address", "alice:1");
    const [oldBob] = parse((await as("bob", "init", "--address", "bob:1", "--json")).stdout);
    await as("alice", "send", "bob:1", "hello");
    expect((await as("bob", "listen", "--count", "1")).stdout).toEqual(["alice:1: hello"]);
    const number = parse((await as("alice", "safety-number", "bob:1", "--json")).stdout)[0];
    expect(number).toEqual({
      address: "bob:1",
      safetyNumber: expect.stringMatching(/^\d{60}$/),
      fingerprint: fingerprintOf(oldBob),
      ownFingerprint: expect.stringMatching(/^([0-9a-f]{4} ){7}[0-9a-f]{4}$/),
    });
    const bobsNumber = parse((await as("bob", "safety-number", "alice:1", "--json")).stdout)[0];
    expect(bobsNumber?.safetyNumber).toBe(number?.safetyNumber);
    const text = await as("alice", "safety-number", "bob:1");
    expect(text.stdout[0]?.split("\n").slice(0, 4)).toEqual([
      "safety number of bob:1 and you:",
      ...formatSafetyNumber(number?.safetyNumber as string).split("\n"),
    ]);

    // bob starts over with new keys under the same address, and writes to alice.
    const old = await SvcClient.open({ server: url, store: memoryStore() });
    const state = JSON.parse(await readFile(join(homeOf("bob"), "state.json"), "utf8"));
    const seed = decodeBase64(state.identity.signingSeed, 32);
    await old.api.keysDelete("bob:1", seed);
    await old.api.inboxUnregister("bob:1", seed);
    await old.close();
    const [newBob] = parse((await as("bob2", "init", "--address", "bob:1", "--json")).stdout);
    await as("bob2", "send", "alice:1", "new keys");
    const changed = `the identity keys of bob:1 changed: trusted here ${fingerprintOf(oldBob)}, now the directory has ${fingerprintOf(newBob)}`;
    const hint =
      "If bob:1 really has new keys, compare the safety number with them (svc safety-number bob:1), then accept the keys with: svc trust bob:1";
    const listen = await as("alice", "listen", "--timeout", "1");
    expect(listen.code).toBe(EXIT.timeout);
    expect(listen.stderr[0]).toMatch(
      /^svc: warning: envelope [0-9a-f]{64} from bob:1: a first message under other identity keys: /,
    );
    expect(listen.stderr[0]).toContain(changed);

    const refused = await as("alice", "send", "bob:1", "are you there?");
    expect(refused).toEqual({
      code: EXIT.identityChanged,
      stdout: [],
      stderr: [`svc: error: ${changed}. ${hint}`],
    });
    const json = await as("alice", "send", "bob:1", "are you there?", "--json");
    expect(json.code).toBe(EXIT.identityChanged);
    expect(parse(json.stderr)).toEqual([
      {
        error: "IDENTITY_CHANGED",
        message: `${changed}. ${hint}`,
        address: "bob:1",
        trustedFingerprint: fingerprintOf(oldBob),
        newFingerprint: fingerprintOf(newBob),
      },
    ]);
    const pending = parse((await as("alice", "safety-number", "bob:1", "--json")).stdout)[0];
    expect(pending?.changed).toEqual({
      safetyNumber: parse((await as("bob2", "safety-number", "alice:1", "--json")).stdout)[0]
        ?.safetyNumber,
      fingerprint: fingerprintOf(newBob),
    });

    const trust = await as("alice", "trust", "bob:1");
    expect(trust).toEqual({
      code: EXIT.ok,
      stdout: [
        `bob:1: trusted the new keys: fingerprint ${fingerprintOf(newBob)} (was ${fingerprintOf(oldBob)}); the next message starts a new session`,
      ],
      stderr: [],
    });
    expect((await as("alice", "send", "bob:1", "welcome back")).code).toBe(EXIT.ok);
    expect((await as("bob2", "listen", "--count", "1")).stdout).toEqual(["alice:1: welcome back"]);
    expect(parse((await as("alice", "trust", "bob:1", "--json")).stdout)).toEqual([
      {
        address: "bob:1",
        changed: false,
        previousFingerprint: fingerprintOf(newBob),
        fingerprint: fingerprintOf(newBob),
      },
    ]);
  });

  it("safety-number of a peer never seen fails without fetching; send to an unregistered name hints at :1", async () => {
    const { as } = await world();
    await as("alice", "init", "--address", "alice:1");
    await as("bob", "init", "--address", "bob:1");
    const unknown = await as("alice", "safety-number", "bob:1");
    expect(unknown).toEqual({
      code: EXIT.failure,
      stdout: [],
      stderr: [
        "svc: error: no identity keys of bob:1 are known here yet: they are learnt with the first message to or from bob:1, or by trusting bob:1; svc trust bob:1 fetches them (using up one of its one-time prekeys, kept for the first message)",
      ],
    });
    expect(parse((await as("bob", "keys", "status", "--json")).stdout)[0]).toMatchObject({
      oneTimePreKeysOnServer: 100,
    });
    const hinted = await as("alice", "send", "bob", "hi");
    expect(hinted).toEqual({
      code: EXIT.failure,
      stdout: [],
      stderr: [
        "svc: error: the server refused (404 SVC_NOT_REGISTERED): bob is not registered; did you mean bob:1?",
      ],
    });
    const plain = await as("alice", "send", "carol", "hi");
    expect(plain.stderr[0]).not.toContain("did you mean");
  });

  it("two homes exchange messages both ways with send and listen --count --json", async () => {
    const { as } = await world();
    await as("alice", "init", "--address", "alice:1");
    await as("bob", "init", "--address", "bob:1");

    // Two messages wait in bob's inbox (the first sets up the session); a third comes live.
    const sent: string[] = [];
    for (const text of ["hello bob", "ünïcödé ✓ 🙂"]) {
      const run = await as("alice", "send", "bob:1", text, "--json");
      expect(run).toMatchObject({ code: EXIT.ok, stderr: [] });
      const [line] = parse(run.stdout);
      expect(line).toEqual({ to: "bob:1", msgId: expect.any(String) });
      sent.push(line?.msgId as string);
    }
    const listening = as("bob", "--json", "listen", "--count", "3");
    await until(() => listening.stdout.length === 2, 15_000);
    const live = await as("alice", "send", "bob:1", "--", "-live-");
    expect(live.stdout[0]).toMatch(/^sent to bob:1 \(msgId [A-Za-z0-9_-]+\)$/);
    const bob = await listening;
    expect(bob.code).toBe(EXIT.ok);
    expect(bob.stderr).toEqual([]);
    const messages = bob.stdout.map((line) => JSON.parse(line));
    expect(messages.slice(0, 2)).toEqual([
      { from: "alice:1", text: "hello bob", msgId: sent[0] },
      { from: "alice:1", text: "ünïcödé ✓ 🙂", msgId: sent[1] },
    ]);
    expect(messages[2]).toEqual({ from: "alice:1", text: "-live-", msgId: expect.any(String) });
    for (const line of bob.stdout) {
      expect(Object.keys(JSON.parse(line))).toEqual(["from", "text", "msgId"]);
    }

    expect((await as("bob", "send", "alice:1", "hi alice", "--json")).code).toBe(EXIT.ok);
    const alice = await as("alice", "listen", "--count", "1", "--json");
    expect(alice).toMatchObject({ code: EXIT.ok, stderr: [] });
    expect(parse(alice.stdout)).toEqual([
      { from: "bob:1", text: "hi alice", msgId: expect.any(String) },
    ]);
    // Everything was acknowledged: nothing is delivered twice.
    const empty = await as("bob", "listen", "--timeout", "0.5", "--json");
    expect(empty).toMatchObject({ code: EXIT.timeout, stdout: [] });
  });

  it("listen leaves messages past --count queued, exits 4 on --timeout, and prints text", async () => {
    const { as } = await world();
    await as("alice", "init", "--address", "alice:1");
    await as("bob", "init", "--address", "bob:1");
    for (const text of ["one", "two", "three"]) await as("alice", "send", "bob:1", text);

    const two = await as("bob", "listen", "--count", "2");
    expect(two.code).toBe(EXIT.ok);
    expect(two.stdout).toEqual(["alice:1: one", "alice:1: two"]);
    expect(two.stderr.filter((line) => !line.startsWith("svc: listening as bob:1"))).toEqual([]);

    const short = await as("bob", "listen", "--count", "2", "--timeout", "1");
    expect(short.code).toBe(EXIT.timeout);
    expect(short.stdout).toEqual(["alice:1: three"]);
    expect(short.stderr.at(-1)).toBe("svc: error: listen timed out after 1 s with 1 of 2 messages");

    const none = await as("bob", "listen", "--timeout", "0.3", "--json");
    expect(none).toEqual({
      code: EXIT.timeout,
      stdout: [],
      stderr: [
        JSON.stringify({
          error: "TIMEOUT",
          message: "listen timed out after 0.3 s with 0 messages",
        }),
      ],
    });
  });

  it("listen without --count runs until it is signalled, then exits 0", async () => {
    const { url, homeOf, as } = await world();
    await as("alice", "init", "--address", "alice:1");
    await as("bob", "init", "--address", "bob:1");
    const stop = new AbortController();
    const listening = svc(url, homeOf("bob"), ["listen"], { signal: stop.signal });
    await until(() => listening.stderr.some((line) => line.startsWith("svc: listening")), 15_000);
    expect(listening.stderr[0]).toMatch(/^svc: listening as bob:1 \((ws|sse|poll) bridge\)$/);
    await as("alice", "send", "bob:1", "are you there?");
    await until(() => listening.stdout.length === 1, 15_000);
    // The key store is locked per operation: bob's home answers while it listens.
    expect(await as("bob", "whoami")).toMatchObject({ code: EXIT.ok, stderr: [] });
    expect(await as("bob", "send", "alice:1", "yes")).toMatchObject({ code: EXIT.ok, stderr: [] });
    expect((await as("alice", "listen", "--drain")).stdout).toEqual(["bob:1: yes"]);
    stop.abort();
    expect(await listening).toMatchObject({ code: EXIT.ok, stdout: ["alice:1: are you there?"] });
  });

  it("keys status counts one-time prekeys, EC and ML-KEM, on the server and here", async () => {
    const { as } = await world();
    await as("alice", "init", "--address", "alice:1");
    await as("bob", "init", "--address", "bob:1");
    const status = async (name: string) =>
      parse((await as(name, "keys", "status", "--json")).stdout);
    expect(await status("alice")).toEqual([
      {
        address: "alice:1",
        oneTimePreKeysOnServer: 100,
        oneTimePreKeysLocal: 100,
        signedPreKeyId: 1,
        kemPreKeysOnServer: 100,
        kemPreKeysLocal: 100,
      },
    ]);
    // bob's first message takes one of alice's prekeys of each kind from the server; reading it
    // uses them here.
    await as("bob", "send", "alice:1", "hi");
    expect(await status("alice")).toMatchObject([
      {
        oneTimePreKeysOnServer: 99,
        oneTimePreKeysLocal: 100,
        kemPreKeysOnServer: 99,
        kemPreKeysLocal: 100,
      },
    ]);
    await as("alice", "listen", "--count", "1");
    expect(await status("alice")).toMatchObject([
      {
        oneTimePreKeysOnServer: 99,
        oneTimePreKeysLocal: 99,
        kemPreKeysOnServer: 99,
        kemPreKeysLocal: 99,
      },
    ]);
    const text = await as("alice", "keys", "status");
    expect(text.stdout).toEqual([
      "address: alice:1\none-time prekeys on the server: 99\none-time prekeys held here: 99\nsigned prekey id: 1\none-time ML-KEM prekeys on the server: 99\none-time ML-KEM prekeys held here: 99",
    ]);
  });

  it("kt verify prints the tree size and leaf index; exit 3 from a lying server or one without KT", async () => {
    const { url, homeOf, as } = await world();
    await as("alice", "init", "--address", "alice:1");
    const [bob] = parse((await as("bob", "init", "--address", "bob:1", "--json")).stdout);

    const verified = await as("alice", "kt", "verify", "bob:1", "--json");
    expect(verified).toMatchObject({ code: EXIT.ok, stderr: [] });
    expect(parse(verified.stdout)).toEqual([{ ...bob, treeSize: 2, leafIndex: 1 }]);
    const text = await as("alice", "kt", "verify", "bob:1");
    expect(text.stdout[0]).toMatch(
      /^bob:1: key transparency verified: leaf 1 of a tree of size 2\nidentity signing key/,
    );

    const liar = await startLyingProxy(url, closers);
    for (const home of ["alice", "carol"]) {
      const lied = await svc(liar.url, homeOf(home), ["kt", "verify", "bob:1", "--json"]);
      expect(lied.code, home).toBe(EXIT.verification);
      expect(lied.stdout).toEqual([]);
      expect(parse(lied.stderr)).toEqual([
        { error: "KT_VERIFICATION_FAILED", message: expect.stringMatching(/^key transparency: /) },
      ]);
    }
    // send checks the bundle too: nothing is encrypted to the lying server's key.
    const send = await svc(liar.url, homeOf("alice"), ["send", "bob:1", "secret"]);
    expect(send.code).toBe(EXIT.verification);
    expect(send.stderr[0]).toMatch(/^svc: error: key transparency: the bundle of bob:1 fails/);

    // A server without a log cannot prove anything either.
    const noKt = await startTestServer(closers, { SVC_KT: "off" });
    const refused = await svc(noKt.url, homeOf("dave"), ["init", "--address", "dave:1"]);
    expect(refused).toEqual({
      code: EXIT.verification,
      stdout: [],
      stderr: [
        `svc: error: key transparency: the server at ${noKt.url} has no key-transparency log (GET /v1/kt/log_id answered 404): its keys cannot be verified; --no-kt accepts such a server (its keys then trusted on first use only), except for kt verify`,
      ],
    });
    const accepted = await svc(noKt.url, homeOf("dave"), [
      "init",
      "--address",
      "dave:1",
      "--no-kt",
    ]);
    expect(accepted.code).toBe(EXIT.ok);
    const unproven = await svc(noKt.url, homeOf("erin"), ["kt", "verify", "dave:1", "--json"]);
    expect(unproven.code).toBe(EXIT.verification);
    expect(parse(unproven.stderr)).toEqual([
      { error: "KT_UNAVAILABLE", message: expect.stringMatching(/^key transparency: /) },
    ]);
  });

  it("an unreachable server exits 1 with a clear message", async () => {
    const home = await tempDir(closers, "svc-cli-unreachable-");
    const port = await closedPort();
    const down = `http://127.0.0.1:${port}`;
    const text = await svc(down, home, ["init", "--address", "alice:1"]);
    expect(text).toEqual({
      code: EXIT.failure,
      stdout: [],
      stderr: [
        `svc: error: cannot reach the server at ${down}: connect ECONNREFUSED 127.0.0.1:${port}`,
      ],
    });
    const json = await svc(down, home, ["kt", "verify", "bob", "--json"]);
    expect(json.code).toBe(EXIT.failure);
    expect(parse(json.stderr)).toEqual([
      { error: "NETWORK", message: expect.stringContaining(`cannot reach the server at ${down}`) },
    ]);
  });

  it("a key store that cannot be used exits 1 with what is wrong", async () => {
    const dir = await tempDir(closers, "svc-cli-store-");
    const file = join(dir, "not-a-dir");
    await writeFile(file, "");
    const notDir = await svc("http://127.0.0.1:9", file, ["whoami"]);
    expect(notDir.code).toBe(EXIT.failure);
    expect(notDir.stderr).toEqual([
      expect.stringMatching(`^svc: error: cannot use the key store in ${file}: EEXIST`),
    ]);
    const corrupt = join(dir, "corrupt");
    await mkdir(corrupt);
    await writeFile(join(corrupt, "state.json"), "{not json");
    const bad = await svc("http://127.0.0.1:9", corrupt, ["whoami", "--json"]);
    expect(bad.code).toBe(EXIT.failure);
    expect(parse(bad.stderr)).toEqual([
      { error: "BAD_STATE", message: `${join(corrupt, "state.json")} is not JSON` },
    ]);
  });

  it("a server refusal exits 1 with its code", async () => {
    const { as } = await world();
    await as("alice", "init", "--address", "alice:1");
    const run = await as("alice", "send", "nobody:1", "hi");
    expect(run.code).toBe(EXIT.failure);
    expect(run.stderr).toEqual([
      expect.stringMatching(/^svc: error: the server refused \(404 SVC_NOT_REGISTERED\): /),
    ]);
  });

  it("send reads the message from stdin with - or when stdin is not a terminal", async () => {
    const { url, homeOf, as } = await world();
    await as("alice", "init", "--address", "alice:1");
    await as("bob", "init", "--address", "bob:1");
    const piped = (chunks: Array<string | Buffer>, isTTY = false) =>
      Object.assign(Readable.from(chunks), { isTTY });
    const send = (input: Readable, ...argv: string[]) =>
      svc(url, homeOf("alice"), ["send", "bob:1", ...argv], { input });

    expect((await send(piped(["line one\n", "line tw", "o\n"]), "-")).code).toBe(EXIT.ok);
    expect((await send(piped(["héllo\r\n"]))).code).toBe(EXIT.ok);
    expect(
      (await as("bob", "listen", "--drain", "--json")).stdout.map((l) => JSON.parse(l).text),
    ).toEqual(["line one\nline two", "héllo"]);

    const refusals: Array<[Readable, string[], string]> = [
      [piped([]), ["-"], "svc: the message is empty"],
      [piped(["\n"]), [], "svc: the message is empty"],
      [piped([Buffer.from([0x68, 0xff])]), ["-"], "svc: the message on stdin is not UTF-8"],
      [
        piped([Buffer.alloc(64 * 1024 + 1, 0x61)]),
        ["-"],
        "svc: the message on stdin is over 64 KiB",
      ],
      [piped(["typed"], true), [], "svc: svc send takes <address> <text>, or - to read it"],
    ];
    for (const [input, argv, message] of refusals) {
      const run = await send(input, ...argv);
      expect(run.code, message).toBe(EXIT.usage);
      expect(run.stderr[0]).toMatch(new RegExp(`^${message}.*\n\nusage: svc send`));
    }
    expect((await as("bob", "listen", "--drain")).stdout).toEqual([]);
  });

  it("exits 2 on usage errors with the message and the usage, 0 on --help", async () => {
    const io = () => {
      const out = { stdout: [] as string[], stderr: [] as string[] };
      return {
        out,
        io: {
          env: {},
          stdout: (line: string) => out.stdout.push(line),
          stderr: (line: string) => out.stderr.push(line),
        },
      };
    };
    for (const [argv, message, usage] of [
      [[], "svc: no command given", "usage: svc [options] <command>"],
      [["fly"], "svc: unknown command: fly", "usage: svc [options] <command>"],
      [["send", "bob:1"], "svc: svc send takes <address> <text>", "usage: svc send <address>"],
      [["listen", "--count", "x"], "svc: --count must be a whole number", "usage: svc listen"],
      [["init", "--address", "a b"], 'svc: --address "a b" is not', "usage: svc init"],
    ] as const) {
      const { out, io: cliIo } = io();
      expect(await runCli(argv, cliIo)).toBe(EXIT.usage);
      expect(out.stdout).toEqual([]);
      expect(out.stderr).toHaveLength(1);
      expect(out.stderr[0]).toContain(message);
      expect(out.stderr[0]).toContain(usage);
      expect(out.stderr[0]).toMatch(/exit status: 0 ok/);
    }
    const help = io();
    expect(await runCli(["--help"], help.io)).toBe(EXIT.ok);
    expect(help.out).toEqual({ stdout: [USAGE], stderr: [] });
    const listenHelp = io();
    expect(await runCli(["listen", "-h"], listenHelp.io)).toBe(EXIT.ok);
    expect(listenHelp.out.stdout[0]).toMatch(/^usage: svc listen \[--count <n>\]/);
  });

  it("shows progress on slow work for people, never with --json", async () => {
    const { url, homeOf } = await world();
    const labels: string[] = [];
    const progress = <T>(label: string, work: Promise<T>) => {
      labels.push(label);
      return work;
    };
    await svc(url, homeOf("alice"), ["init", "--address", "alice:1"], { progress });
    await svc(url, homeOf("bob"), ["init", "--address", "bob:1", "--json"], { progress });
    await svc(url, homeOf("alice"), ["send", "bob:1", "hi"], { progress });
    await svc(url, homeOf("bob"), ["listen", "--count", "1"], { progress });
    expect(labels).toEqual(["registering alice:1", "sending to bob:1", "fetching queued messages"]);
  });
});
