import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeBase64 } from "@svc/canonical";
import { createTestStorage, until } from "@svc/db/testing";
import { createSthSigner, KtLog } from "@svc/kt-log";
import { loadConfig, migrations, startServer } from "@svc/prekey-server";
import { vrfPublicKey } from "@svc/vrf";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../exit.js";
import { ALIASES } from "../programs.js";
import { ktUsage } from "./args.js";
import { runKtCli } from "./run.js";

const SVC_KT = ALIASES["svc-kt"];
const USAGE = ktUsage(SVC_KT.name);

// Migrating the first test database of a file is slow: pay it outside the tests' time limit.
beforeAll(async () => (await createTestStorage({ migrations })).close());

const SEED = new Uint8Array(32).fill(21);
const VRF_SECRET_KEY = new Uint8Array(32).fill(22);
const VRF_PUBLIC_KEY = encodeBase64(vrfPublicKey(VRF_SECRET_KEY));
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A live prekey server plus a log instance on its database to append with. */
async function liveLog() {
  const storage = await createTestStorage({ migrations });
  closers.push(() => storage.close());
  const config = loadConfig({
    SVC_PORT: "0",
    SVC_LOG_LEVEL: "silent",
    SVC_DATA_DIR: join(tmpdir(), `svc-kt-test-${process.pid}`),
    SVC_KT_SIGNING_KEY: encodeBase64(SEED),
    SVC_KT_VRF_KEY: encodeBase64(VRF_SECRET_KEY),
  });
  const server = await startServer(config, { storage });
  closers.push(() => server.stop());
  const log = await KtLog.open({
    storage,
    signer: createSthSigner(SEED),
    vrfSecretKey: VRF_SECRET_KEY,
  });
  const register = (address: string, n: number) =>
    log.append({
      kind: "identity",
      address,
      identitySigningKey: new Uint8Array(32).fill(n),
      identityDHKey: new Uint8Array(32).fill(n + 1),
    });
  return { server, log, register };
}

/** Captures the CLI's lines; with `--json` every line must parse. */
function output() {
  const stdout: Array<Record<string, unknown>> = [];
  const stderr: Array<Record<string, unknown>> = [];
  return {
    stdout,
    stderr,
    io: {
      stdout: (line: string) => stdout.push(JSON.parse(line)),
      stderr: (line: string) => stderr.push(JSON.parse(line)),
    },
  };
}

describe("svc-kt monitor", () => {
  it("--once verifies the log and reports the watched addresses' changes", async () => {
    const { server, log, register } = await liveLog();
    await register("alice", 1);
    await register("bob", 3);
    await log.append({ kind: "tombstone", address: "alice" });
    const out = output();
    const code = await runKtCli(
      SVC_KT,
      ["monitor", "--url", server.url, "--watch", "alice", "--once", "--json"],
      out.io,
    );
    expect(code).toBe(EXIT.ok);
    expect(out.stdout).toEqual([
      expect.objectContaining({ event: "sth", treeSize: 3 }),
      {
        event: "change",
        address: "alice",
        kind: "identity",
        leafIndex: 0,
        timestampMs: expect.any(Number),
      },
      {
        event: "change",
        address: "alice",
        kind: "tombstone",
        leafIndex: 2,
        timestampMs: expect.any(Number),
      },
    ]);
    expect(out.stderr).toEqual([]);
  });

  it("reports a replaced last-resort KEM key as an identity change after the previous leaf", async () => {
    const { server, log } = await liveLog();
    const dave = {
      kind: "identity",
      address: "dave",
      identitySigningKey: new Uint8Array(32).fill(5),
      identityDHKey: new Uint8Array(32).fill(6),
    } as const;
    await log.append({ ...dave, kemKeyHash: new Uint8Array(32).fill(7) });
    await log.append({ ...dave, kemKeyHash: new Uint8Array(32).fill(8) });
    const out = output();
    const args = ["monitor", "--url", server.url, "--watch", "dave", "--once", "--json"];
    expect(await runKtCli(SVC_KT, args, out.io)).toBe(EXIT.ok);
    const change = { event: "change", address: "dave", kind: "identity" };
    expect(out.stdout.slice(1)).toEqual([
      { ...change, leafIndex: 0, timestampMs: expect.any(Number) },
      { ...change, leafIndex: 1, timestampMs: expect.any(Number), previousLeafIndex: 0 },
    ]);
  });

  it("--vrf-key pins the VRF key: the log's own is accepted, another one fails the check", async () => {
    const { server, register } = await liveLog();
    await register("alice", 1);
    const logKey = encodeBase64(createSthSigner(SEED).publicKey);
    const run = async (vrfKey: string) => {
      const out = output();
      const args = ["monitor", "--url", server.url, "--watch", "alice", "--once", "--json"];
      const code = await runKtCli(
        SVC_KT,
        [...args, "--log-key", logKey, "--vrf-key", vrfKey],
        out.io,
      );
      return { code, ...out };
    };
    const pinned = await run(VRF_PUBLIC_KEY);
    expect(pinned.code).toBe(EXIT.ok);
    expect(pinned.stdout.map((e) => e.event)).toEqual(["sth", "change"]);
    const other = await run(encodeBase64(vrfPublicKey(new Uint8Array(32).fill(23))));
    expect(other.code).toBe(EXIT.verification);
    expect(other.stderr).toEqual([
      expect.objectContaining({ event: "error", code: "KT_BAD_PROOF" }),
    ]);
  });

  it("prints text lines without --json", async () => {
    const { server, register } = await liveLog();
    await register("alice", 1);
    const lines: string[] = [];
    const code = await runKtCli(
      SVC_KT,
      ["monitor", "--url", server.url, "--watch", "alice", "--once"],
      {
        stdout: (line) => lines.push(line),
        stderr: (line) => lines.push(line),
      },
    );
    expect(code).toBe(EXIT.ok);
    expect(lines).toEqual([
      expect.stringMatching(/^verified tree head: size 1, signed \d{4}-\d\d-\d\dT.*Z, root /),
      expect.stringMatching(
        /^alice: new identity at leaf 0, .*Z \(a v2 leaf: it commits to the keys/,
      ),
    ]);
  });

  it("follows new STHs while watching, with the operator key pinned", async () => {
    const { server, register } = await liveLog();
    await register("carol", 5);
    const out = output();
    const stop = new AbortController();
    const logKey = encodeBase64(createSthSigner(SEED).publicKey);
    const running = runKtCli(
      SVC_KT,
      [
        ...["monitor", "--url", server.url, "--watch", "carol", "--interval", "20"],
        ...["--log-key", logKey, "--json"],
      ],
      { ...out.io, signal: stop.signal },
    );
    await until(() => out.stdout.some((e) => e.event === "sth" && e.treeSize === 1), 15_000);
    await register("dave", 7);
    await register("carol", 9);
    await until(() => out.stdout.some((e) => e.event === "sth" && e.treeSize === 3), 15_000);
    stop.abort();
    expect(await running).toBe(EXIT.ok);
    expect(out.stdout.filter((e) => e.event === "change").map((e) => e.leafIndex)).toEqual([0, 2]);
  });

  it("exits 3 on a forged STH served by a fake server", async () => {
    const { server, register } = await liveLog();
    await register("alice", 1);
    const fake = createServer(async (req, res) => {
      const upstream = await fetch(`${server.url}${req.url}`);
      const body = (await upstream.json()) as Record<string, unknown>;
      if (req.url === "/v1/kt/sth") {
        const signature = Buffer.from(body.signature as string, "base64");
        signature[5] = (signature[5] as number) ^ 0x10;
        body.signature = signature.toString("base64");
      }
      res
        .writeHead(upstream.status, { "content-type": "application/json" })
        .end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => fake.close(() => resolve())));
    const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    const out = output();
    expect(await runKtCli(SVC_KT, ["monitor", "--url", url, "--once", "--json"], out.io)).toBe(
      EXIT.verification,
    );
    expect(out.stderr).toEqual([
      expect.objectContaining({ event: "error", code: "KT_BAD_SIGNATURE" }),
    ]);
    expect(out.stdout).toEqual([]);
  });

  it("exits 3 when the log forks or shrinks under the same key", async () => {
    const honest = await liveLog();
    await honest.register("alice", 1);
    await honest.register("bob", 3);
    const forked = await liveLog();
    await forked.register("mallory", 1);
    await forked.register("bob", 3);
    await forked.register("eve", 5);
    const shrunk = await liveLog();
    await shrunk.register("alice", 1);

    for (const [other, code] of [
      [forked, "KT_FORK"],
      [shrunk, "KT_LOG_SHRANK"],
    ] as const) {
      let target = honest.server.url;
      const out = output();
      const stop = new AbortController();
      const args = ["monitor", "--url", "http://log.example", "--interval", "20", "--json"];
      const running = runKtCli(SVC_KT, args, {
        ...out.io,
        signal: stop.signal,
        fetch: (url) => fetch(url.replace("http://log.example", target)),
      });
      await until(() => out.stdout.some((e) => e.event === "sth" && e.treeSize === 2), 15_000);
      target = other.server.url;
      expect(await running).toBe(EXIT.verification);
      expect(out.stderr.at(-1)).toMatchObject({ event: "error", code });
    }
  });

  it("warns and polls again while the log is unreachable", async () => {
    const { server, register } = await liveLog();
    await register("alice", 1);
    let down = false;
    const out = output();
    const stop = new AbortController();
    const running = runKtCli(
      SVC_KT,
      ["monitor", "--url", server.url, "--interval", "20", "--json"],
      {
        ...out.io,
        signal: stop.signal,
        fetch: (url) => (down ? Promise.reject(new Error("connection refused")) : fetch(url)),
      },
    );
    await until(() => out.stdout.length === 1, 15_000);
    down = true;
    await until(() => out.stderr.length >= 2, 15_000);
    down = false;
    await register("bob", 3);
    await until(() => out.stdout.length === 2, 15_000);
    stop.abort();
    expect(await running).toBe(EXIT.ok);
    expect(out.stderr[0]).toMatchObject({ event: "warning", code: "KT_FETCH_FAILED" });
    expect(out.stdout[1]).toMatchObject({ event: "sth", treeSize: 2 });
  });

  it("exits 1 when the log cannot be reached, with the error on stderr", async () => {
    const json = output();
    const args = ["monitor", "--url", "http://127.0.0.1:1", "--once"];
    expect(await runKtCli(SVC_KT, [...args, "--json"], json.io)).toBe(EXIT.failure);
    expect(json.stderr).toEqual([
      expect.objectContaining({ event: "error", code: "KT_FETCH_FAILED" }),
    ]);
    const lines: string[] = [];
    expect(
      await runKtCli(SVC_KT, args, { stdout: () => {}, stderr: (line) => lines.push(line) }),
    ).toBe(EXIT.failure);
    expect(lines).toEqual([
      expect.stringMatching(/^svc-kt: error: KT_FETCH_FAILED: GET \/v1\/kt\/log_id failed/),
    ]);
  });

  it("exits 2 on usage errors, and prints the usage with its exit codes on --help", async () => {
    for (const args of [
      [],
      ["audit", "--url", "http://x"],
      ["monitor"],
      ["monitor", "--url", "ftp://x"],
      ["monitor", "--url", "http://x", "--interval", "5"],
      ["monitor", "--url", "http://x", "--watch", "a,b"],
      ["monitor", "--url", "http://x", "--log-key", "AAAA"],
      ["monitor", "--url", "http://x", "--vrf-key", "AAAA"],
      ["monitor", "--url", "http://x", "--unknown"],
    ]) {
      const lines: string[] = [];
      const code = await runKtCli(SVC_KT, args, {
        stdout: () => {},
        stderr: (line) => lines.push(line),
      });
      expect(code).toBe(EXIT.usage);
      expect(lines.join("\n")).toMatch(/usage: svc-kt monitor[\s\S]*\n {7}svc-kt witness/);
    }
    for (const args of [["--help"], ["monitor", "-h"]]) {
      const lines: string[] = [];
      const code = await runKtCli(SVC_KT, args, {
        stdout: (line) => lines.push(line),
        stderr: () => {},
      });
      expect(code).toBe(EXIT.ok);
      expect(lines).toEqual([USAGE]);
    }
    expect(USAGE).toMatch(/exit status: 0 .*\n(.*\n)*.*2 usage error, 3 the log failed a check/);
  });
});
