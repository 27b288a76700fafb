import { runTransferCli } from "./cli/run.js";

// The `svc-transfer` binary (bin/svc-transfer.js). The first SIGINT / SIGTERM ends `receive`
// cleanly (exit 0) and stops a `send` after its chunks in flight (it resumes on the next run); a
// second one, with the handler gone, ends the process the default way.
const stop = new AbortController();
process.once("SIGINT", () => stop.abort());
process.once("SIGTERM", () => stop.abort());

process.exitCode = await runTransferCli(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  terminal: process.stderr.isTTY ? process.stderr : undefined,
  signal: stop.signal,
});
