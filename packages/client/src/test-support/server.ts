import {
  startTestServer as startServer,
  TEST_KT_SIGNING_KEY,
  TEST_KT_VRF_KEY,
  type TestServer,
} from "@svc/test-server";
import { afterEach } from "vitest";

export { TEST_KT_SIGNING_KEY, TEST_KT_VRF_KEY };

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
 * with the test KT keys, stopped after the test.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  options: { now?: () => number } = {},
): Promise<TestServer> {
  const server = await startServer({
    ...options,
    env: { SVC_KT_SIGNING_KEY: TEST_KT_SIGNING_KEY, SVC_KT_VRF_KEY: TEST_KT_VRF_KEY, ...env },
  });
  cleanups.push(() => server.stop());
  return server;
}
