import { spinnerProgress } from "./progress.js";
import { runCli } from "./run.js";

// The `svc` binary (bin/svc.js). The first SIGINT / SIGTERM ends `listen` cleanly (exit 0); a
// second one, with the handler gone, ends the process the default way.
const stop = new AbortController();
process.once("SIGINT", () => stop.abort());
process.once("SIGTERM", () => stop.abort());

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  signal: stop.signal,
  ...(process.stderr.isTTY ? { progress: spinnerProgress(process.stderr) } : {}),
});
