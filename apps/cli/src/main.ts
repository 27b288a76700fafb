import { terminalSpinner } from "./progress.js";
import type { CliIo } from "./run.js";

/**
 * Runs one of the binaries (bin/): `run` gets the process's streams and environment and resolves
 * to the exit status. The first SIGINT / SIGTERM aborts the signal given to `run` (listen and
 * receive end with 0, a transfer send with 130); a second one, with the handler gone, ends the
 * process the default way. What no command turned into an exit status is one line under `tool`'s
 * name, never a stack trace.
 */
export async function main(tool: string, run: (io: CliIo) => Promise<number>): Promise<void> {
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort());
  process.once("SIGTERM", () => stop.abort());
  // The spinner shares the terminal with the output: its line is erased before each line written.
  const spinner = process.stderr.isTTY ? terminalSpinner(process.stderr) : undefined;
  process.exitCode = await run({
    stdout: (line) => {
      spinner?.clear();
      process.stdout.write(`${line}\n`);
    },
    stderr: (line) => {
      spinner?.clear();
      process.stderr.write(`${line}\n`);
    },
    env: process.env,
    signal: stop.signal,
    ...(spinner ? { progress: spinner.progress } : {}),
    // Getters: process.stdin is opened only by the commands that read it.
    get input() {
      return process.stdin;
    },
    output: process.stdout,
    terminal: process.stderr.isTTY ? process.stderr : undefined,
  }).catch((error: unknown) => {
    process.stderr.write(
      `${tool}: error: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  });
}
