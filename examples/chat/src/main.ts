import { fileURLToPath } from "node:url";
import { ConfigError } from "@svc/prekey-server";
import { startChatServer } from "./chat-server.js";

/** The example's defaults; any SVC_* variable of the environment overrides them. */
const DEFAULTS = {
  SVC_PORT: "8090",
  SVC_DATA_DIR: fileURLToPath(new URL("../data", import.meta.url)),
  SVC_LOG_LEVEL: "warn",
};

async function main(): Promise<void> {
  const chat = await startChatServer({ ...DEFAULTS, ...process.env });
  // Before the line that says it is up, which a script may answer with a signal at once.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      chat.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
  process.stdout.write(
    `chat: open ${chat.url} in two tabs, one per person (alice:1 and bob:1, say); Ctrl-C stops\n`,
  );
}

main().catch((error: unknown) => {
  const exitCode = error instanceof ConfigError ? 2 : 1;
  process.stderr.write(`chat: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(exitCode);
});
