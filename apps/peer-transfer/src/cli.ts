import { runTransferCli } from "./cli/run.js";

// The `svc-transfer` binary (bin/svc-transfer.js). The first SIGINT / SIGTERM ends `receive`
// cleanly (exit 0) and stops a `send` (exit 130, INTERRUPTED: it resumes on the next run); a
// second one, with the handler gone, ends the process the default way.
const stop = new AbortController();
process.once("SIGINT", () => stop.abort());
process.once("SIGTERM", () => stop.abort());

process.exitCode = await runTransferCli(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  terminal: process.stderr.isTTY ? process.stderr : undefined,
  signal: stop.signal,
}).catch(crashed);

/** What no command turned into an exit status: one line, never a stack trace. */
function crashed(error: unknown): number {
  process.stderr.write(
    `svc-transfer: error: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  return 1;
}
