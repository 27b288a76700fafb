import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EXIT } from "@svc/cli/exit";
import { LANE_DEPTH } from "@svc/transfer-peer";
import { afterEach, describe, expect, it } from "vitest";
import {
  BIN,
  type Closer,
  freePort,
  initHome,
  jsonLines,
  randomFile,
  runClosers,
  type Spawned,
  spawnNode,
  startPrekeyServer,
  tempDir,
  waitFor,
} from "./test-support/processes.js";

/** The bin runs the CLI's build (apps/cli/dist), which `pnpm build` (or `pnpm svc-transfer`) makes; CI builds first. */
const built = existsSync(fileURLToPath(new URL("../../cli/dist/alias.js", import.meta.url)));
const MIB = 1024 * 1024;
const CHUNK_ROUTE = "/v1/transfer/:streamId/chunk";
const INTERRUPTED = "the transfer was interrupted: run the same command again to resume it";

const closers: Closer[] = [];
afterEach(() => runClosers(closers));

interface Setup {
  server: string;
  alice: string;
  bob: string;
  work: string;
  inbox: string;
  port: number;
}

async function setup(): Promise<Setup> {
  const server = await startPrekeyServer(closers);
  const work = await tempDir(closers, "svc-transfer-work-");
  return {
    server,
    alice: await initHome(closers, server, "alice:1"),
    bob: await initHome(closers, server, "bob:1"),
    work,
    inbox: join(work, "inbox"),
    port: await freePort(),
  };
}

function receive(s: Setup): Spawned & { url: string } {
  const url = `http://127.0.0.1:${s.port}`;
  const argv = ["receive", "--dir", s.inbox, "--port", String(s.port), "--json"];
  return { ...spawnNode(closers, BIN, argv, { SVC_SERVER: s.server, SVC_HOME: s.bob }), url };
}

function send(s: Setup, file: string, extra: string[] = []): Spawned {
  const argv = ["send", file, "--to", "bob:1", "--peer", `http://127.0.0.1:${s.port}`, "--json"];
  return spawnNode(closers, BIN, [...argv, ...extra], { SVC_SERVER: s.server, SVC_HOME: s.alice });
}

async function healthy(url: string): Promise<boolean> {
  return fetch(`${url}/v1/transfer/health`).then(
    (answer) => answer.ok,
    () => false,
  );
}

/** svc_requests_total of the chunk route with `status`, from the receiver's /metrics. */
async function chunkRequests(url: string, status: number): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text
    .split("\n")
    .find((l) => l.startsWith(`svc_requests_total{route="${CHUNK_ROUTE}",status="${status}"}`));
  return line === undefined ? 0 : Number(line.split(" ").at(-1));
}

const sha256 = async (path: string) =>
  createHash("sha256")
    .update(await readFile(path))
    .digest("hex");

describe.skipIf(!built)("svc-transfer (the bin, in subprocesses, on real files)", () => {
  it("sends a file to a receiver: the documented JSON lines, the file in place, /health and /metrics", async () => {
    const s = await setup();
    const receiver = receive(s);
    await waitFor(() => healthy(receiver.url), 30_000, "the receiver");
    const file = await randomFile(s.work, "report.pdf", 5 * MIB + 17);
    const sender = send(s, file, ["--lanes", "3", "--chunk-bytes", String(256 * 1024)]);
    expect(await sender.exited).toBe(EXIT.ok);

    const digest = await sha256(file);
    const [result] = jsonLines(sender.out.stdout);
    expect(Object.keys(result ?? {})).toEqual([
      "streamId",
      "bytes",
      "sha256",
      "seconds",
      "resumedBytes",
    ]);
    expect(result).toMatchObject({ bytes: 5 * MIB + 17, sha256: digest, resumedBytes: 0 });
    await waitFor(() => receiver.out.stdout.includes("\n"), 5000, "the receiver's line");
    expect(jsonLines(receiver.out.stdout)).toEqual([
      { streamId: result?.streamId, name: "report.pdf", bytes: 5 * MIB + 17, sha256: digest },
    ]);
    expect(await sha256(join(s.inbox, "report.pdf"))).toBe(digest);
    expect(jsonLines(receiver.out.stderr)[0]).toMatchObject({ address: "bob:1", dir: s.inbox });

    expect(await (await fetch(`${receiver.url}/health`)).json()).toEqual({
      status: "ok",
      service: "svc-peer-transfer",
    });
    expect(await chunkRequests(receiver.url, 200)).toBe(Math.ceil((5 * MIB + 17) / (256 * 1024)));

    receiver.child.kill("SIGTERM");
    expect(await receiver.exited).toBe(EXIT.ok);
  }, 60_000);

  it("resumes after kill -9 of the sender: the second run re-sends no acknowledged chunk", async () => {
    const s = await setup();
    const receiver = receive(s);
    await waitFor(() => healthy(receiver.url), 30_000, "the receiver");
    const chunkBytes = MIB;
    const file = await randomFile(s.work, "big.bin", 48 * MIB);
    const chunks = 48;

    const first = send(s, file, ["--lanes", "2", "--chunk-bytes", String(chunkBytes)]);
    await waitFor(async () => (await chunkRequests(receiver.url, 200)) >= 6, 30_000, "progress");
    first.child.kill("SIGKILL");
    await first.exited;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const acked = await chunkRequests(receiver.url, 200);
    expect(acked).toBeLessThan(chunks);

    const second = send(s, file);
    expect(await second.exited).toBe(EXIT.ok);
    const [result] = jsonLines(second.out.stdout);
    expect(result).toMatchObject({ bytes: 48 * MIB, sha256: await sha256(file) });
    expect(result?.resumedBytes).toBe(acked * chunkBytes);
    expect(await chunkRequests(receiver.url, 200)).toBe(chunks);
    expect(await chunkRequests(receiver.url, 409)).toBe(0);
    expect(await sha256(join(s.inbox, "big.bin"))).toBe(result?.sha256);
  }, 120_000);

  it("rides out kill -9 of the receiver: a new one on the same directory continues the stream", async () => {
    const s = await setup();
    const first = receive(s);
    await waitFor(() => healthy(first.url), 30_000, "the receiver");
    const file = await randomFile(s.work, "big.bin", 48 * MIB);

    // In text, to see the outage's two lines: one when it starts, one when it ends.
    const argv = ["send", file, "--to", "bob:1", "--peer", first.url, "--lanes", "2"];
    const sender = spawnNode(closers, BIN, [...argv, "--chunk-bytes", String(MIB)], {
      SVC_SERVER: s.server,
      SVC_HOME: s.alice,
    });
    await waitFor(async () => (await chunkRequests(first.url, 200)) >= 6, 30_000, "progress");
    first.child.kill("SIGKILL");
    await first.exited;

    const second = receive(s);
    await waitFor(() => healthy(second.url), 30_000, "the second receiver");
    expect(await sender.exited).toBe(EXIT.ok);
    const digest = await sha256(file);
    expect(sender.out.stdout).toMatch(
      new RegExp(`^sent ${file} to bob:1: ${48 * MIB} bytes in [\\d.]+ s, sha256 ${digest}\n$`),
    );
    expect(sender.out.stderr.split("\n")).toEqual([
      expect.stringMatching(
        new RegExp(
          `^svc-transfer: the receiver at ${first.url} does not answer \\(.+\\); retrying$`,
        ),
      ),
      `svc-transfer: the receiver at ${first.url} answers again; going on`,
      "",
    ]);
    await waitFor(() => second.out.stdout.includes("\n"), 5000, "the receiver's line");
    expect(jsonLines(second.out.stdout)[0]).toMatchObject({ name: "big.bin", sha256: digest });
    // Only the chunks in flight when the first receiver died may come again (their acks never
    // left, or their retries crossed): at most LANE_DEPTH per lane.
    expect(await chunkRequests(second.url, 409)).toBeLessThanOrEqual(2 * LANE_DEPTH);
    expect(await sha256(join(s.inbox, "big.bin"))).toBe(digest);
  }, 120_000);

  it("stops a send on SIGINT or SIGTERM with exit 130 and one line; the same command resumes it", async () => {
    const s = await setup();
    const receiver = receive(s);
    await waitFor(() => healthy(receiver.url), 30_000, "the receiver");
    const file = await randomFile(s.work, "big.bin", 48 * MIB);
    const progressed = async (chunks: number) =>
      waitFor(async () => (await chunkRequests(receiver.url, 200)) >= chunks, 30_000, "progress");

    const first = send(s, file, ["--lanes", "2", "--chunk-bytes", String(MIB)]);
    await progressed(4);
    first.child.kill("SIGINT");
    expect(await first.exited).toBe(130);
    expect(first.out.stderr).toBe(
      `${JSON.stringify({ error: "INTERRUPTED", message: INTERRUPTED })}\n`,
    );
    expect(first.out.stdout).toBe("");

    const acked = await chunkRequests(receiver.url, 200);
    const second = spawnNode(
      closers,
      BIN,
      ["send", file, "--to", "bob:1", "--peer", receiver.url],
      {
        SVC_SERVER: s.server,
        SVC_HOME: s.alice,
      },
    );
    await progressed(acked + 4);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(130);
    expect(second.out.stderr).toBe(`svc-transfer: error: ${INTERRUPTED}\n`);

    const last = send(s, file);
    expect(await last.exited).toBe(EXIT.ok);
    const [result] = jsonLines(last.out.stdout);
    expect(result).toMatchObject({ bytes: 48 * MIB, sha256: await sha256(file) });
    expect(result?.resumedBytes).toBeGreaterThanOrEqual((acked + 4) * MIB);
    expect(await sha256(join(s.inbox, "big.bin"))).toBe(result?.sha256);
  }, 120_000);

  it("refuses to send to a receiver of another address, naming both", async () => {
    const s = await setup();
    const receiver = receive(s);
    await waitFor(() => healthy(receiver.url), 30_000, "the receiver");
    const file = await randomFile(s.work, "f.bin", 1000);
    const argv = ["send", file, "--to", "alice:1", "--peer", receiver.url, "--json"];
    const wrong = spawnNode(closers, BIN, argv, { SVC_SERVER: s.server, SVC_HOME: s.alice });
    expect(await wrong.exited).toBe(EXIT.failure);
    expect(jsonLines(wrong.out.stderr)).toEqual([
      {
        error: "WRONG_RECEIVER",
        message: `the receiver at ${receiver.url} is bob:1's, not alice:1's: check the address and the peer URL`,
      },
    ]);
    expect(await chunkRequests(receiver.url, 200)).toBe(0);
  }, 60_000);

  it("exits 1 at once on a port in use, naming --port and SVC_TRANSFER_PORT, making nothing", async () => {
    const s = await setup();
    const receiver = receive(s);
    await waitFor(() => healthy(receiver.url), 30_000, "the receiver");
    const dir = join(s.work, "second-inbox");
    const argv = ["receive", "--dir", dir, "--port", String(s.port)];
    for (const json of [false, true]) {
      const busy = spawnNode(closers, BIN, json ? [...argv, "--json"] : argv, {
        SVC_SERVER: s.server,
        SVC_HOME: s.alice,
      });
      expect(await busy.exited).toBe(EXIT.failure);
      const message = `port ${s.port} is in use (set --port or SVC_TRANSFER_PORT)`;
      expect(busy.out.stderr).toBe(
        json
          ? `${JSON.stringify({ error: "EADDRINUSE", message })}\n`
          : `svc-transfer: error: ${message}\n`,
      );
    }
    expect(existsSync(dir)).toBe(false);
  }, 60_000);

  it("exits 2 on a usage error, 5 without an identity, 1 when the peer cannot be reached", async () => {
    const s = await setup();
    const usage = spawnNode(closers, BIN, ["send", "f"], {});
    expect(await usage.exited).toBe(EXIT.usage);
    expect(usage.out.stderr).toMatch(/^svc-transfer: --to is required\n\nusage: svc-transfer send/);

    const file = await randomFile(s.work, "f.bin", 1000);
    const empty = await tempDir(closers, "svc-transfer-empty-");
    const noIdentity = spawnNode(
      closers,
      BIN,
      ["send", file, "--to", "bob:1", "--peer", "http://127.0.0.1:1", "--json"],
      { SVC_SERVER: s.server, SVC_HOME: empty },
    );
    expect(await noIdentity.exited).toBe(EXIT.identity);
    expect(jsonLines(noIdentity.out.stderr)[0]).toMatchObject({ error: "NO_IDENTITY" });

    const unreachable = send(s, file);
    expect(await unreachable.exited).toBe(EXIT.failure);
    expect(jsonLines(unreachable.out.stderr).at(-1)).toMatchObject({ error: "UNAVAILABLE" });
  }, 120_000);
});
