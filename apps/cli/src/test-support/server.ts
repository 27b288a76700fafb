import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer as startServer } from "@svc/test-server";
import { type CliIo, runCli } from "../run.js";

/** What a test started, to stop after it, last started first. */
export type Closer = () => Promise<void>;

/** A real prekey server (KT and inbox on unless `env` says) on a fresh test database and a free port. */
export async function startTestServer(
  closers: Closer[],
  env: Record<string, string> = {},
): Promise<{ url: string }> {
  const server = await startServer({ env });
  closers.push(() => server.stop());
  return { url: server.url };
}

/**
 * A real prekey server that can be stopped and started again on the same port, database and data
 * directory, as an operator restarting it would; `url` is known before it first starts.
 */
export async function startRestartableServer(
  closers: Closer[],
): Promise<{ url: string; stop(): Promise<void>; start(): Promise<void> }> {
  const server = await startServer();
  closers.push(() => server.stop());
  return { url: server.url, stop: () => server.pause(), start: () => server.restart() };
}

/**
 * A server that lies: it relays plain requests to `upstream` but answers every prekey bundle with
 * another identity DH key, which the bundle's key-transparency proof does not cover.
 */
export function startLyingProxy(upstream: string, closers: Closer[]): Promise<{ url: string }> {
  return startBundleProxy(upstream, closers, (bundle) => ({
    ...bundle,
    identityDHKey: Buffer.alloc(32, 7).toString("base64"),
  }));
}

/** A server that relays to `upstream` but serves every bundle without its ML-KEM prekey. */
export function startDowngradingProxy(
  upstream: string,
  closers: Closer[],
): Promise<{ url: string }> {
  return startBundleProxy(upstream, closers, ({ kemPreKey: _, ...bundle }) => bundle);
}

/** A server that relays plain requests to `upstream`, each prekey bundle through `rewrite`. */
async function startBundleProxy(
  upstream: string,
  closers: Closer[],
  rewrite: (bundle: Record<string, unknown>) => Record<string, unknown>,
): Promise<{ url: string }> {
  const proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    const headers: Record<string, string> = {};
    if (req.headers["content-type"]) headers["content-type"] = req.headers["content-type"];
    const answer = await fetch(`${upstream}${req.url}`, { method: req.method, headers, body });
    let text = await answer.text();
    if (answer.ok && req.url?.startsWith("/v1/keys/bundle/")) {
      text = JSON.stringify(rewrite(JSON.parse(text) as Record<string, unknown>));
    }
    res.writeHead(answer.status, { "content-type": "application/json" }).end(text);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => proxy.close(() => resolve())));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` };
}

export async function tempDir(closers: Closer[], prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** One run of the CLI in this process: its exit status and the lines it wrote. */
export interface CliRun {
  code: number;
  stdout: string[];
  stderr: string[];
}

/** Runs `svc <argv>` against `server` with `home` as if from a shell with neither variable set. */
export function svc(
  server: string,
  home: string,
  argv: string[],
  io: Partial<CliIo> = {},
): Promise<CliRun> & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const running = runCli(argv, {
    env: { SVC_SERVER: server, SVC_HOME: home },
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    ...io,
  }).then((code) => ({ code, stdout, stderr }));
  return Object.assign(running, { stdout, stderr });
}
