import { stopOnSignals } from "@svc/http";
import { ConfigError } from "@svc/node-kit";
import { loadTransferConfig, startTransferReceiver } from "@svc/transfer-peer";

// The peer-transfer server: the receiver of the identity in $SVC_HOME, configured from the
// environment (docs/configuration.md), stream state in the database by default.
async function main(): Promise<void> {
  let config: ReturnType<typeof loadTransferConfig>;
  try {
    config = loadTransferConfig(process.env, { store: "database" });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const receiver = await startTransferReceiver(config);
  // Before the line that says it is up: a supervisor may signal as soon as it reads it.
  stopOnSignals(
    () => receiver.stop(),
    (signal) => receiver.logger.info("shutting down", { signal }),
  );
  receiver.logger.info("listening", {
    url: receiver.url,
    address: receiver.address,
    dir: config.dir,
    store: config.store,
  });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
