import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { encodeBase64 } from "@svc/canonical";
import { createTestStorage, until } from "@svc/db/testing";
import { createSthSigner, KtLog } from "@svc/kt-log";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestServer } from "../test-support/app.js";
import { EXIT, runKtCli } from "./run.js";

// Migrating the first test database of a file is slow: pay it outside the tests' time limit.
beforeAll(async () => (await createTestStorage()).close());

const SEED = new Uint8Array(32).fill(21);
const ENV = { SVC_KT_SIGNING_KEY: encodeBase64(SEED) };
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A live server plus a log instance on its database to append with. */
async function liveLog() {
  const storage = await createTestStorage();
  const server = await startTestServer(ENV, { storage });
  closers.push(() => storage.close());
  const log = await KtLog.open({ storage, signer: createSthSigner(SEED) });
  const register = (address: string, n: number) =>
    log.append({
      kind: "identity",
      address,
      identitySigningKey: new Uint8Array(32).fill(n),
      identityDHKey: new Uint8Array(32).fill(n + 1),
    });
  return { server, log, register };
}

function output() {
  const stdout: Array<Record<string, unknown>> = [];
  const stderr: Array<Record<string, unknown>> = [];
  return {
    stdout,
    stderr,
    io: {
      stdout: (line: string) => stdout.push(JSON.parse(line)),
      stderr: (line: string) => stderr.push(JSON.parse(line.split("\n")[0] as string)),
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
      ["monitor", "--url", server.url, "--watch", "alice", "--once"],
      out.io,
    );
    expect(code).toBe(EXIT.ok);
    expect(out.stdout).toEqual([
      expect.objectContaining({ event: "sth", treeSize: 3 }),
      expect.objectContaining({
        event: "change",
        address: "alice",
        kind: "identity",
        leafIndex: 0,
        identitySigningKey: encodeBase64(new Uint8Array(32).fill(1)),
      }),
      expect.objectContaining({
        event: "change",
        address: "alice",
        kind: "tombstone",
        leafIndex: 2,
      }),
    ]);
    expect(out.stderr).toEqual([]);
  });

  it("follows new STHs while watching, with the operator key pinned", async () => {
    const { server, register } = await liveLog();
    await register("carol", 5);
    const out = output();
    const stop = new AbortController();
    const logKey = encodeBase64(createSthSigner(SEED).publicKey);
    const running = runKtCli(
      ["monitor", "--url", server.url, "--watch", "carol", "--interval", "20", "--log-key", logKey],
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
    expect(await runKtCli(["monitor", "--url", url, "--once"], out.io)).toBe(EXIT.verification);
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
      const running = runKtCli(["monitor", "--url", "http://log.example", "--interval", "20"], {
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

  it("exits 1 when the log cannot be reached, and 2 on usage errors", async () => {
    const out = output();
    expect(await runKtCli(["monitor", "--url", "http://127.0.0.1:1", "--once"], out.io)).toBe(
      EXIT.unreachable,
    );
    for (const args of [
      [],
      ["audit", "--url", "http://x"],
      ["monitor"],
      ["monitor", "--url", "ftp://x"],
      ["monitor", "--url", "http://x", "--interval", "5"],
      ["monitor", "--url", "http://x", "--watch", "a,b"],
      ["monitor", "--url", "http://x", "--log-key", "AAAA"],
      ["monitor", "--url", "http://x", "--unknown"],
    ]) {
      const lines: string[] = [];
      const code = await runKtCli(args, { stdout: () => {}, stderr: (line) => lines.push(line) });
      expect(code).toBe(EXIT.usage);
      expect(lines.join("\n")).toMatch(/usage: svc-kt monitor/);
    }
  });
});
