import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestStorage } from "@svc/db/testing";
import { loadConfig, migrations, type RunningServer, startServer } from "@svc/prekey-server";

/**
 * The workspace's prekey server on a fresh database (PGlite, or PostgreSQL with
 * TEST_DATABASE_URL) and a free port of 127.0.0.1, with KT and the inbox on; `stop` removes all.
 */
export async function startPrekeyServer(): Promise<RunningServer> {
  const dataDir = await mkdtemp(join(tmpdir(), "svc-packaging-server-"));
  const storage = await createTestStorage({ migrations });
  const server = await startServer(
    loadConfig({ SVC_PORT: "0", SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: "silent" }),
    { storage },
  );
  return {
    ...server,
    async stop() {
      await server.stop();
      await storage.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
