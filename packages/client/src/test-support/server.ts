import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestStorage } from "@svc/db/testing";
import { loadConfig, migrations, type RunningServer, startServer } from "@svc/prekey-server";
import { afterEach } from "vitest";

/** A fixed operator key, so that servers do not generate one in their data directory. */
export const TEST_KT_SIGNING_KEY = "V+XgpeE5hfue6bhO6kWhHytw6TFPuGkMsskEfce1lI8=";
export const TEST_KT_VRF_KEY = "dnJmLWtleS1vZi10aGUtdGVzdC1hcHBzLTMyYnl0ZXM=";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Runs `cleanup` after the current test, before the servers stop. */
export function afterThisTest(cleanup: () => Promise<void> | void): void {
  cleanups.push(async () => cleanup());
}

/**
 * A listening prekey server on a fresh database (PGlite, or PostgreSQL with TEST_DATABASE_URL),
 * stopped after the test.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  options: { now?: () => number } = {},
): Promise<RunningServer> {
  const dataDir = await mkdtemp(join(tmpdir(), "svc-client-test-"));
  const storage = await createTestStorage({ migrations });
  const config = loadConfig({
    SVC_PORT: "0",
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: "silent",
    SVC_KT_SIGNING_KEY: TEST_KT_SIGNING_KEY,
    SVC_KT_VRF_KEY: TEST_KT_VRF_KEY,
    ...env,
  });
  const server = await startServer(config, { storage, ...options });
  cleanups.push(async () => {
    await server.stop();
    await storage.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  return server;
}
