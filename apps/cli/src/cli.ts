import { terminalSpinner } from "./progress.js";
import { runCli } from "./run.js";

// The `svc` binary (bin/svc.js). The first SIGINT / SIGTERM ends `listen` cleanly (exit 0); a
// second one, with the handler gone, ends the process the default way.
const stop = new AbortController();
process.once("SIGINT", () => stop.abort());
process.once("SIGTERM", () => stop.abort());

// The spinner shares the terminal with the output: its line is erased before each line written.
const spinner = process.stderr.isTTY ? terminalSpinner(process.stderr) : undefined;
process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (line) => {
    spinner?.clear();
    process.stdout.write(`${line}\n`);
  },
  stderr: (line) => {
    spinner?.clear();
    process.stderr.write(`${line}\n`);
  },
  signal: stop.signal,
  ...(spinner ? { progress: spinner.progress } : {}),
  // Getters: process.stdin is opened only by the commands that read it.
  get input() {
    return process.stdin;
  },
  output: process.stdout,
}).catch(crashed);

/** What no command turned into an exit status: one line, never a stack trace. */
function crashed(error: unknown): number {
  process.stderr.write(`svc: error: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
}
