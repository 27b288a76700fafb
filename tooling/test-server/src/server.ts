import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestStorage } from "@svc/db/testing";
import {
  type CreateAppOptions,
  loadConfig,
  migrations,
  type RunningServer,
  startServer,
} from "@svc/prekey-server";

/** A fixed operator key and VRF key, for servers that should not generate theirs. */
export const TEST_KT_SIGNING_KEY = "V+XgpeE5hfue6bhO6kWhHytw6TFPuGkMsskEfce1lI8=";
export const TEST_KT_VRF_KEY = "dnJmLWtleS1vZi10aGUtdGVzdC1hcHBzLTMyYnl0ZXM=";

export interface TestServerOptions extends Omit<CreateAppOptions, "storage"> {
  /** Server environment variables on top of port 0, silent logs and a fresh data directory. */
  env?: Record<string, string>;
}

/** A prekey server of a test: what startServer returns, and a way to restart it. */
export interface TestServer extends RunningServer {
  /**
   * Stops listening (as RunningServer.stop does) and keeps its database and data directory,
   * for `restart`.
   */
  pause(): Promise<void>;
  /** Starts it again on the same port, database and data directory, as an operator would. */
  restart(): Promise<void>;
  /** Stops it if running, then closes its database and removes its data directory. */
  stop(): Promise<void>;
}

/**
 * The workspace's prekey server in this process (KT and inbox on unless `env` says), on a fresh
 * test database (PGlite, or PostgreSQL with TEST_DATABASE_URL) and a free port of 127.0.0.1.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { env = {}, ...appOptions } = options;
  const dataDir = await mkdtemp(join(tmpdir(), "svc-test-server-"));
  const storage = await createTestStorage({ migrations });
  const config = (port: string) =>
    loadConfig({
      SVC_LOG_LEVEL: "silent",
      SVC_DATA_DIR: dataDir,
      ...env,
      SVC_PORT: port,
    });
  let running: RunningServer;
  try {
    running = await startServer(config(env.SVC_PORT ?? "0"), { ...appOptions, storage });
  } catch (error) {
    await storage.close();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  const port = String(running.port);
  let listening = true;
  const pause = async () => {
    if (!listening) return;
    listening = false;
    await running.stop();
  };
  return {
    get svc() {
      return running.svc;
    },
    url: running.url,
    port: running.port,
    pause,
    async restart() {
      await pause();
      running = await startServer(config(port), { ...appOptions, storage });
      listening = true;
    },
    async stop() {
      await pause();
      await storage.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
