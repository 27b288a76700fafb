import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryStore, SvcClient } from "@svc/client";
import { nodeClientOptions } from "@svc/client/node";
import { startTestServer } from "@svc/test-server";

/** Something a test started, to stop once it is done, last started first. */
export type Closer = () => Promise<void>;

export async function closeAll(closers: Closer[]): Promise<void> {
  for (const close of closers.splice(0).reverse()) await close();
}

/**
 * A real prekey server (key transparency and inbox on) on a fresh test database (PGlite, or
 * PostgreSQL with TEST_DATABASE_URL): the directory where receiver and sender find each other.
 */
export async function startDirectory(closers: Closer[]): Promise<string> {
  const server = await startTestServer();
  closers.push(() => server.stop());
  return server.url;
}

/** A client registered as `address` on `server`, its state in memory. */
export async function registeredClient(
  closers: Closer[],
  server: string,
  address: string,
): Promise<SvcClient> {
  const client = await SvcClient.open({ server, store: memoryStore(), ...nodeClientOptions() });
  closers.push(() => client.close());
  await client.init(address);
  return client;
}

export async function tempDir(closers: Closer[], prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
