import { runKtCli } from "./run.js";

// The `svc-kt` binary (bin/svc-kt.js): stops cleanly on SIGINT / SIGTERM.
const stop = new AbortController();
process.once("SIGINT", () => stop.abort());
process.once("SIGTERM", () => stop.abort());

process.exitCode = await runKtCli(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  signal: stop.signal,
  env: process.env,
}).catch(crashed);

/** What no command turned into an exit status: one line, never a stack trace. */
function crashed(error: unknown): number {
  process.stderr.write(
    `svc-kt: error: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  return 1;
}
