import { openStorage } from "@svc/db";
import { loadConfig, migrations, startServer } from "@svc/prekey-server";

/** The process server-process.ts forks: a prekey server configured by argv[2] (JSON env). */
const env = JSON.parse(process.argv[2] ?? "{}") as Record<string, string>;
const config = loadConfig({ ...env, SVC_PORT: "0", SVC_HOST: "127.0.0.1" });
const storage =
  env.DATABASE_URL || env.SVC_DATA_DIR ? undefined : await openStorage({ migrations });
const server = await startServer(config, storage ? { storage } : {});
process.on("message", async (message) => {
  if (message !== "stop") return;
  await server.stop();
  process.exit(0);
});
process.send?.({ port: server.port });
