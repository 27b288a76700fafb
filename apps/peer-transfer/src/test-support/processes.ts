import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SvcClient } from "@svc/client";
import { fileStore, nodeClientOptions } from "@svc/client/node";
import { type SpawnedProcess, spawnNode as spawn } from "@svc/processes";
import { startTestServer } from "@svc/test-server";

export { freePort } from "@svc/processes";

export const BIN = fileURLToPath(new URL("../../bin/svc-transfer.js", import.meta.url));
export const MAIN = fileURLToPath(new URL("../../dist/main.js", import.meta.url));

/** What a test started, to stop after it, last started first. */
export type Closer = () => Promise<void>;

export async function runClosers(closers: Closer[]): Promise<void> {
  for (const close of closers.splice(0).reverse()) await close();
}

export async function tempDir(closers: Closer[], prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A real prekey server (KT and inbox on) on a fresh test database and a free port. */
export async function startPrekeyServer(closers: Closer[]): Promise<string> {
  const server = await startTestServer({ env: { SVC_RATE_LIMIT: "off" } });
  closers.push(() => server.stop());
  return server.url;
}

/** A home holding a registered identity, as `svc init --address <address>` leaves it. */
export async function initHome(
  closers: Closer[],
  server: string,
  address: string,
): Promise<string> {
  const home = await tempDir(closers, `svc-transfer-home-${address.replace(/\W/g, "-")}-`);
  const client = await SvcClient.open({ server, store: fileStore(home), ...nodeClientOptions() });
  await client.init(address);
  await client.close();
  return home;
}

export async function randomFile(dir: string, name: string, bytes: number): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, randomBytes(bytes));
  return path;
}

export type Spawned = SpawnedProcess;

/** `node <script> <argv>` as a shell would start it; output collected as it comes. */
export function spawnNode(
  closers: Closer[],
  script: string,
  argv: string[],
  env: Record<string, string>,
): Spawned {
  return spawn(script, argv, { env, closers });
}

/** The JSON lines of a process's output. */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export async function waitFor(check: () => boolean | Promise<boolean>, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
