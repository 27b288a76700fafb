import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestStorage } from "@svc/db/testing";
import { migrations } from "@svc/server-schema";
import { afterEach } from "vitest";
import { type CreateAppOptions, createApp, type SvcApp } from "../app.js";
import { type Config, loadConfig } from "../config.js";
import { type RunningServer, startServer } from "../server.js";

/** Configuration as the server would read it from these environment variables. */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    SVC_LOG_LEVEL: "silent",
    SVC_PORT: "0",
    SVC_DATA_DIR: testDataDir,
    SVC_KT_SIGNING_KEY: TEST_KT_SIGNING_KEY,
    SVC_KT_VRF_KEY: TEST_KT_VRF_KEY,
    SVC_PUSH_VAPID_KEY: TEST_PUSH_VAPID_KEY,
    ...env,
  });
}

/** Fixed operator, VRF and VAPID keys, so test apps do not generate them in a data directory. */
export const TEST_KT_SIGNING_KEY = "V+XgpeE5hfue6bhO6kWhHytw6TFPuGkMsskEfce1lI8=";
export const TEST_KT_VRF_KEY = "dnJmLWtleS1vZi10aGUtdGVzdC1hcHBzLTMyYnl0ZXM=";
export const TEST_PUSH_VAPID_KEY = "Q1E13e8LhSUimOzAzlaCzn2UBYHyHCkrmmw7kMNYGiQ";
const testDataDir = join(tmpdir(), `svc-test-${process.pid}`);

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An app on a fresh test database, closed after the test. */
export async function createTestApp(
  env: Record<string, string> = {},
  options: CreateAppOptions = {},
): Promise<SvcApp> {
  const storage = options.storage ?? (await createTestStorage({ migrations }));
  const svc = await createApp(testConfig(env), { ...options, storage });
  cleanups.push(async () => {
    await svc.close();
    if (!options.storage) await storage.close();
  });
  return svc;
}

/** A listening server on a fresh test database (or the given one), stopped after the test. */
export async function startTestServer(
  env: Record<string, string> = {},
  options: CreateAppOptions = {},
): Promise<RunningServer> {
  const storage = options.storage ?? (await createTestStorage({ migrations }));
  const server = await startServer(testConfig(env), { ...options, storage });
  cleanups.push(async () => {
    await server.stop();
    if (!options.storage) await storage.close();
  });
  return server;
}
