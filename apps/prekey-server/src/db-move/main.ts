import { runDbCli } from "./cli.js";

// The `svc-db` binary (bin/svc-db.js).
process.exitCode = await runDbCli(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
}).catch(crashed);

/** What no command turned into an exit status: one line, never a stack trace. */
function crashed(error: unknown): number {
  process.stderr.write(
    `svc-db: error: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  return 1;
}
