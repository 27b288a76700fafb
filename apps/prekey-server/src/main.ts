import { stopOnSignals } from "@svc/http";
import { ConfigError, usePrivateUmask } from "@svc/node-kit";
import { loadConfig } from "./config.js";
import { startServer } from "./server.js";

async function main(): Promise<void> {
  // The data directory's files are the server's alone, whatever the umask it was started with.
  usePrivateUmask();
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const server = await startServer(config);
  const { logger } = server.svc.services;
  // Before the line that says it is up: a supervisor may signal as soon as it reads it.
  stopOnSignals(
    () => server.stop(),
    (signal) => logger.info("shutting down", { signal }),
  );
  logger.info("listening", {
    url: server.url,
    storage: server.svc.services.storage.kind,
    kt: config.kt.enabled,
    inbox: config.inbox.enabled,
  });
  // Every statement fails from then on: exit, so that a supervisor restarts the server.
  void server.svc.services.storage.failed.then((error) => {
    logger.error("database thread failed", { reason: error.message });
    process.exit(1);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
