import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createTestStorage, until } from "@svc/db/testing";
import { migrations } from "@svc/prekey-server";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "./exit.js";
import { built, spawnSvc } from "./test-support/processes.js";
import { type Closer, startTestServer, svc, tempDir } from "./test-support/server.js";

beforeAll(async () => (await createTestStorage({ migrations })).close());

const closers: Closer[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A user agent's P-256 key and authentication secret: RFC 8291's example. */
const P256DH =
  "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
const AUTH = "BTBZMqHH6r4Tts7J_aSIgg";
const keys = ["--p256dh", P256DH, "--auth", AUTH];

const parse = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

/** `svc` in a fresh home against `url`. */
async function homeOn(url: string) {
  const home = join(await tempDir(closers, "svc-cli-push-"), "home");
  return (...argv: string[]) => svc(url, home, argv);
}

describe("svc push: usage", () => {
  it("says what is missing or wrong, with the command's usage, exit 2", async () => {
    const as = await homeOn("http://127.0.0.1:1");
    const cases: Array<[string[], string]> = [
      [
        ["push", "subscribe", "--endpoint", "https://p.example/x", "--p256dh", P256DH],
        "--auth is required",
      ],
      [["push", "subscribe", "--p256dh", P256DH, "--auth", AUTH], "--endpoint <url> is required"],
      [
        [
          "push",
          "subscribe",
          "--endpoint",
          "https://p.example/x",
          "--p256dh",
          "a+b/c",
          "--auth",
          AUTH,
        ],
        '--p256dh must be base64url, not "a+b/c"',
      ],
      [
        ["push", "subscribe", "--endpoint", "not a url", ...keys],
        '--endpoint must be a URL of at most 1024 characters, not "not a url"',
      ],
      [["push", "unsubscribe"], "--endpoint <url> is required"],
      [
        ["push", "unsubscribe", "--endpoint", "https://p.example/x", "--auth", AUTH],
        "--auth is not an option of svc push unsubscribe",
      ],
      [["push", "vapid", "extra"], "svc push vapid takes no arguments"],
    ];
    for (const [argv, message] of cases) {
      const run = await as(...argv);
      expect(run.code, argv.join(" ")).toBe(EXIT.usage);
      expect(run.stdout).toEqual([]);
      const command = `${argv[0]} ${argv[1]}`;
      expect(run.stderr[0]?.startsWith(`svc: ${message}\n\nusage: svc ${command}`)).toBe(true);
    }
    const unknown = await as("push", "list");
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stderr[0]).toMatch(/^svc: unknown command: svc push list\n/);
  });

  it("documents each command in --help and the three in svc --help", async () => {
    const as = await homeOn("http://127.0.0.1:1");
    const top = await as("--help");
    for (const line of [
      "push subscribe --endpoint <url> --p256dh <key> --auth <secret>",
      "push unsubscribe --endpoint <url>",
      "push vapid",
    ]) {
      expect(top.stdout[0]).toContain(line);
    }
    const help = await as("push", "subscribe", "--help");
    expect(help.code).toBe(EXIT.ok);
    expect(help.stdout[0]).toMatch(
      /^usage: svc push subscribe --endpoint <url> --p256dh <key> --auth <secret>/,
    );
    expect(help.stdout[0]).toContain("SVC_PUSH_ENDPOINT_REFUSED");
    expect((await as("push", "unsubscribe", "-h")).stdout[0]).toContain("no such subscription");
    expect((await as("push", "vapid", "--help")).stdout[0]).toContain("VAPID public key");
  });
});

describe("svc push against the server", () => {
  it("subscribes, unsubscribes (then: no such subscription) and prints the VAPID key", async () => {
    const { url } = await startTestServer(closers, { SVC_PUSH_ALLOW_PRIVATE_ENDPOINTS: "on" });
    const as = await homeOn(url);
    expect((await as("init", "--address", "alice:1")).code).toBe(EXIT.ok);
    const endpoint = "http://127.0.0.1:9/push/alice";

    const subscribed = await as("push", "subscribe", "--endpoint", endpoint, ...keys);
    expect(subscribed).toEqual({ code: EXIT.ok, stdout: [`subscribed ${endpoint}`], stderr: [] });
    const renewed = await as("push", "subscribe", "--endpoint", endpoint, ...keys, "--json");
    expect(renewed).toMatchObject({ code: EXIT.ok, stderr: [] });
    expect(renewed.stdout).toEqual([JSON.stringify({ ok: true, endpoint })]);

    expect(await as("push", "unsubscribe", "--endpoint", endpoint)).toEqual({
      code: EXIT.ok,
      stdout: ["unsubscribed"],
      stderr: [],
    });
    expect(await as("push", "unsubscribe", "--endpoint", endpoint)).toEqual({
      code: EXIT.ok,
      stdout: ["no such subscription"],
      stderr: [],
    });
    const again = await as("push", "unsubscribe", "--endpoint", endpoint, "--json");
    expect(parse(again.stdout)).toEqual([{ ok: true, removed: false }]);

    const vapid = await as("push", "vapid");
    expect(vapid).toMatchObject({ code: EXIT.ok, stderr: [] });
    expect(vapid.stdout).toEqual([expect.stringMatching(/^B[A-Za-z0-9_-]{86}$/)]);
    expect(parse((await as("push", "vapid", "--json")).stdout)).toEqual([
      { publicKey: vapid.stdout[0] },
    ]);
  });

  it("a subscription made with svc push subscribe is woken by a message, signed by svc push vapid's key", async () => {
    const distributor = await startDistributor();
    const { url } = await startTestServer(closers, { SVC_PUSH_ALLOW_PRIVATE_ENDPOINTS: "on" });
    const root = await tempDir(closers, "svc-cli-push-wake-");
    const alice = (...argv: string[]) => svc(url, join(root, "alice"), argv);
    const bob = (...argv: string[]) => svc(url, join(root, "bob"), argv);
    expect((await alice("init", "--address", "alice:1")).code).toBe(EXIT.ok);
    expect((await bob("init", "--address", "bob:1")).code).toBe(EXIT.ok);
    const endpoint = `${distributor.url}/upAlice`;
    expect((await alice("push", "subscribe", "--endpoint", endpoint, ...keys)).code).toBe(EXIT.ok);

    expect((await bob("send", "alice:1", "wake up")).code).toBe(EXIT.ok);
    await until(() => distributor.received.length > 0, 15_000);
    const [wakeUp] = distributor.received;
    const vapid = (await alice("push", "vapid")).stdout[0];
    expect(wakeUp?.path).toBe("/upAlice");
    expect(wakeUp?.headers).toMatchObject({
      "content-encoding": "aes128gcm",
      authorization: expect.stringMatching(
        new RegExp(`^vapid t=[\\w-]+\\.[\\w-]+\\.[\\w-]+, k=${vapid}$`),
      ),
    });
    // Only the encrypted wake-up: nothing of the message, in the clear or not, fits in it.
    expect(wakeUp?.bodyBytes).toBeLessThan(200);
    expect((await alice("listen", "--drain")).stdout).toEqual(["bob:1: wake up"]);

    // Unsubscribed: a message wakes nothing.
    expect((await alice("push", "unsubscribe", "--endpoint", endpoint)).stdout).toEqual([
      "unsubscribed",
    ]);
    const before = distributor.received.length;
    expect((await bob("send", "alice:1", "quiet")).code).toBe(EXIT.ok);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(distributor.received).toHaveLength(before);
  });

  it("exits 1 with the server's code on a refusal, 5 without an identity", async () => {
    const { url } = await startTestServer(closers);
    const as = await homeOn(url);
    const none = await as(
      "push",
      "subscribe",
      "--endpoint",
      "https://p.example/x",
      ...keys,
      "--json",
    );
    expect(none.code).toBe(EXIT.identity);
    expect(parse(none.stderr)[0]).toMatchObject({ error: "NO_IDENTITY" });
    // The VAPID key needs no identity.
    expect((await as("push", "vapid")).code).toBe(EXIT.ok);

    expect((await as("init", "--address", "alice:1")).code).toBe(EXIT.ok);
    const loopback = await as(
      "push",
      "subscribe",
      "--endpoint",
      "https://127.0.0.1/x",
      ...keys,
      "--json",
    );
    expect(loopback.code).toBe(EXIT.failure);
    expect(loopback.stdout).toEqual([]);
    expect(parse(loopback.stderr)).toEqual([
      {
        error: "SVC_PUSH_ENDPOINT_REFUSED",
        message: expect.stringContaining(
          "endpoint resolves to a private, loopback or link-local address",
        ),
      },
    ]);
    const plain = await as("push", "subscribe", "--endpoint", "http://push.example/x", ...keys);
    expect(plain.code).toBe(EXIT.failure);
    expect(plain.stderr).toEqual([
      expect.stringMatching(
        /^svc: error: the server refused \(400 SVC_PUSH_ENDPOINT_REFUSED\): .*endpoint must be https/,
      ),
    ]);
    const badKey = await as(
      "push",
      "subscribe",
      "--endpoint",
      "https://p.example/x",
      "--p256dh",
      "AAAA",
      "--auth",
      AUTH,
      "--json",
    );
    expect(badKey.code).toBe(EXIT.failure);
    expect(parse(badKey.stderr)[0]).toMatchObject({ error: "SVC_INVALID_PUSH_SUBSCRIPTION" });

    const { url: off } = await startTestServer(closers, { SVC_PUSH: "off" });
    const disabled = await (await homeOn(off))("push", "vapid", "--json");
    expect(disabled.code).toBe(EXIT.failure);
    expect(parse(disabled.stderr)[0]).toMatchObject({ error: "SVC_FEATURE_DISABLED" });
  });
});

describe.skipIf(!built)("the svc binary's push commands", () => {
  it("exits 2 without --auth and prints the VAPID key", async () => {
    const usage = spawnSvc(closers, [
      "push",
      "subscribe",
      "--endpoint",
      "https://p.example/x",
      "--p256dh",
      P256DH,
    ]);
    expect(await usage.exited).toBe(EXIT.usage);
    expect(usage.out.stderr).toMatch(/^svc: --auth is required\n\nusage: svc push subscribe/);
    const { url } = await startTestServer(closers);
    const home = await tempDir(closers, "svc-bin-push-");
    const vapid = spawnSvc(closers, ["push", "vapid"], { SVC_SERVER: url, SVC_HOME: home });
    expect(await vapid.exited).toBe(EXIT.ok);
    expect(vapid.out.stdout).toMatch(/^B[A-Za-z0-9_-]{86}\n$/);
  });
});

/** A UnifiedPush distributor's push endpoint, as far as svc sees it: it takes POSTs, answers 201. */
async function startDistributor(): Promise<{
  url: string;
  received: Array<{ path: string; headers: IncomingHttpHeaders; bodyBytes: number }>;
}> {
  const received: Array<{ path: string; headers: IncomingHttpHeaders; bodyBytes: number }> = [];
  const server = createServer(async (req, res) => {
    let bodyBytes = 0;
    for await (const chunk of req) bodyBytes += (chunk as Buffer).length;
    received.push({ path: req.url ?? "", headers: req.headers, bodyBytes });
    res.writeHead(201).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}
