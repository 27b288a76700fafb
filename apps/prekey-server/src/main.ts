import { ConfigError, loadConfig } from "./config.js";
import { startServer } from "./server.js";

const SHUTDOWN_DEADLINE_MS = 10_000;

async function main(): Promise<void> {
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
  logger.info("listening", {
    url: server.url,
    storage: server.svc.services.storage.kind,
    kt: config.kt.enabled,
    inbox: config.inbox.enabled,
  });

  const shutdown = (signal: string) => {
    logger.info("shutting down", { signal });
    setTimeout(() => process.exit(1), SHUTDOWN_DEADLINE_MS).unref();
    server.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
